/** A small JSON client for tests that call the API over real HTTP. */
export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

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
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}
