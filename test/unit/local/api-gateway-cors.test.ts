import { corsPolicy, parseCorsOrigins } from '../../../lambdas/http/cors';
import type { HttpEvent, HttpHandler, HttpResult } from '../../../lambdas/http/middleware';
import type { RouteDefinition } from '../../../lambdas/http/routes';
import { startApiGateway, type AccessLogLine, type LocalApiGateway } from '../../../local/api-gateway';

/**
 * CORS as API Gateway's HTTP API applies a corsConfiguration: preflights answered by the
 * gateway (204) before any route, the Allow-Origin header on answers to allowed origins only,
 * the integration's own CORS headers ignored. And one access log line per request.
 */
const allowed = 'https://play.example.com';
const routes: RouteDefinition[] = [
  { id: 'room', method: 'GET', path: '/v1/rooms/{roomId}', entry: 'none', auth: 'jwt' },
  { id: 'create', method: 'POST', path: '/v1/rooms', entry: 'none', auth: 'jwt' },
];
const events: HttpEvent[] = [];
const answer = (event: HttpEvent): Promise<HttpResult> => {
  events.push(event);
  return Promise.resolve({
    statusCode: 200,
    // A handler's own CORS header: API Gateway ignores it when CORS is configured.
    headers: { 'content-type': 'application/json', etag: '"3"', 'access-control-allow-origin': 'https://evil.example' },
    body: JSON.stringify({ room: { roomId: event.pathParameters?.roomId } }),
  });
};
const handlers = { room: answer as unknown as HttpHandler, create: answer as unknown as HttpHandler };
const logged: AccessLogLine[] = [];

let withCors: LocalApiGateway;
let withoutCors: LocalApiGateway;
beforeAll(async () => {
  withCors = await startApiGateway({
    routes,
    handlers,
    port: 0,
    cors: corsPolicy(parseCorsOrigins(`${allowed}, http://localhost:5173`, 'test')),
    accessLog: (line) => logged.push(line),
  });
  withoutCors = await startApiGateway({ routes, handlers, port: 0, accessLog: () => undefined });
});
afterAll(async () => {
  await withCors.close();
  await withoutCors.close();
});
beforeEach(() => {
  events.length = 0;
  logged.length = 0;
});

function preflight(url: string, origin: string): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });
}

function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('local API gateway: CORS', () => {
  it('answers a preflight from an allowed origin itself: 204 with the Allow-* headers, no handler run', async () => {
    const response = await preflight(`${withCors.url}/v1/rooms`, allowed);

    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const headers = corsHeaders(response);
    expect(headers['access-control-allow-origin']).toBe(allowed);
    expect(headers['access-control-allow-methods']?.split(',')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    );
    expect(headers['access-control-allow-headers']?.split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-match']),
    );
    expect(Number(headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(events).toEqual([]);
  });

  it('answers a preflight on any path, a route or not, as API Gateway does', async () => {
    const response = await preflight(`${withCors.url}/v1/rooms/r-1/whatever`, allowed);

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
  });

  it('gives a preflight from another origin no CORS header: the browser refuses the request', async () => {
    const response = await preflight(`${withCors.url}/v1/rooms`, 'https://other.example.com');

    expect(response.status).toBe(204);
    expect(corsHeaders(response)).toEqual({});
  });

  it('adds Access-Control-Allow-Origin and the exposed headers to an answer for an allowed origin, not its own', async () => {
    const response = await fetch(`${withCors.url}/v1/rooms/r-1`, { headers: { origin: allowed } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(
      expect.arrayContaining(['etag', 'retry-after', 'x-request-id']),
    );
    expect(response.headers.get('vary')).toMatch(/Origin/);
    expect(await response.json()).toEqual({ room: { roomId: 'r-1' } });
  });

  it("adds none for another origin, and drops the handler's own", async () => {
    const response = await fetch(`${withCors.url}/v1/rooms/r-1`, { headers: { origin: 'https://evil.example' } });

    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({});
  });

  it('adds it to the gateway answers too (404), so a browser game can read the error', async () => {
    const response = await fetch(`${withCors.url}/nowhere`, { headers: { origin: allowed } });

    expect(response.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
  });

  it('answers any origin with * when * is allowed', async () => {
    const any = await startApiGateway({
      routes,
      handlers,
      port: 0,
      cors: corsPolicy(['*']),
      accessLog: () => undefined,
    });
    try {
      const pre = await preflight(`${any.url}/v1/rooms`, 'https://anyone.example');
      const real = await fetch(`${any.url}/v1/rooms/r-2`, { headers: { origin: 'https://anyone.example' } });

      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(real.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await any.close();
    }
  });

  it('without CORS configured, an OPTIONS is a request like any other: 404, no CORS header', async () => {
    const response = await preflight(`${withoutCors.url}/v1/rooms`, allowed);

    expect(response.status).toBe(404);
    expect(corsHeaders(response)).toEqual({});
  });

  it('with CORS configured, an OPTIONS that is not a preflight still goes to the routes (404)', async () => {
    const response = await fetch(`${withCors.url}/v1/rooms`, { method: 'OPTIONS', headers: { origin: allowed } });

    expect(response.status).toBe(404);
  });
});

describe('local API gateway: access log', () => {
  it('writes one line per request: id, method, route key, status, latency; never a header or the path', async () => {
    const ok = await fetch(`${withCors.url}/v1/rooms/secret-room`, {
      headers: { authorization: 'Bearer secret-token', origin: allowed },
    });
    await fetch(`${withCors.url}/nowhere`);
    await preflight(`${withCors.url}/v1/rooms`, allowed);
    // The line is written when the exchange closes, just after the answer.
    for (let i = 0; i < 50 && logged.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));

    expect(logged).toEqual([
      {
        requestId: expect.any(String),
        method: 'GET',
        route: 'GET /v1/rooms/{roomId}',
        status: 200,
        latencyMs: expect.any(Number),
      },
      { requestId: expect.any(String), method: 'GET', route: '-', status: 404, latencyMs: expect.any(Number) },
      { requestId: expect.any(String), method: 'OPTIONS', route: '-', status: 204, latencyMs: expect.any(Number) },
    ]);
    // The id is the one the handler got and the caller sees, as API Gateway's apigw-requestid.
    expect(logged[0]?.requestId).toBe(events[0]?.requestContext.requestId);
    expect(ok.headers.get('apigw-requestid')).toBe(logged[0]?.requestId);
    expect(JSON.stringify(logged)).not.toMatch(/secret/);
  });
});
