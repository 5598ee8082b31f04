import { assertMatchesOpenApi } from './openapi-contract';

/** A small JSON client for tests that call the API over real HTTP. */
export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/**
 * Every response it receives is checked against docs/openapi.json (test/helpers/openapi-contract.ts):
 * an undocumented status, field or error code fails the calling test. There is no opt-out on
 * purpose: a test that sends garbage gets a documented 4xx, and that answer is checked too.
 */
export function jsonClient(baseUrl: string) {
  return async function call(
    method: string,
    path: string,
    init: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        'content-type': 'application/json',
        ...init.headers,
      },
      body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    });
    const text = await response.text();
    const body = text ? JSON.parse(text) : undefined;
    assertMatchesOpenApi({ method, path, status: response.status, headers: headersOf(response.headers), body });
    return { status: response.status, headers: response.headers, body };
  };
}

/**
 * `fetch` for tests that need the raw response (their own headers, a body that is not JSON
 * to send): the answer is checked against docs/openapi.json as `jsonClient`'s are, and
 * returned unread (the check reads a clone).
 */
export async function checkedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.clone().text();
  const { pathname, search } = new URL(url);
  assertMatchesOpenApi({
    method: init.method ?? 'GET',
    path: `${pathname}${search}`,
    status: response.status,
    headers: headersOf(response.headers),
    body: text ? JSON.parse(text) : undefined,
  });
  return response;
}

/**
 * The status of `GET ${apiUrl}/health`, the answer checked as `checkedFetch` checks it, or 0
 * when no response came at all (nothing listening yet, the connection refused or reset): for
 * polls that wait for a process to come up. A response the document does not describe still
 * throws: the poll fails on it at once instead of retrying it until its time is up.
 */
export async function healthStatus(apiUrl: string): Promise<number> {
  try {
    return (await checkedFetch(`${apiUrl}/health`)).status;
  } catch (error) {
    // undici's TypeError comes from another realm than jest's: compare its message, not instanceof.
    if ((error as { message?: unknown } | null)?.message === 'fetch failed') return 0;
    throw error;
  }
}

function headersOf(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers.entries());
}
