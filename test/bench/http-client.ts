import type { JsonResponse } from '../helpers/http';

export type BenchCall = (
  method: string,
  path: string,
  init?: { token?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<JsonResponse>;

/**
 * The bench's one HTTP client, for the platform's API and the loopback echo alike: `fetch`, a
 * bearer token, a JSON body, the answer parsed. Unlike the tests' `jsonClient` it does not
 * check answers against docs/openapi.json: that check is the tests' work (they cover every
 * answer), and inside a timed call it would be the bench's own CPU counted as the platform's,
 * on the API's side of a ratio and not on the echo's.
 */
export function benchClient(baseUrl: string): BenchCall {
  return async (method, path, init = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        'content-type': 'application/json',
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}
