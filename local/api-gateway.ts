import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CorsPolicy } from '../lambdas/http/cors';
import type { HttpEvent, HttpHandler, HttpResult } from '../lambdas/http/middleware';
import type { RouteDefinition } from '../lambdas/http/routes';
import { childLogger } from '../core/infra/logger';
import { isPreflight, preflightHeaders, withCorsHeaders } from './cors';
import { lambdaContext } from './lambda-context';
import { isAllowedHost } from './host-check';

/** A route served by the local gateway itself, not by a Lambda handler (`/health`). */
interface GatewayOwnRoute {
  readonly method: string;
  readonly path: string;
  readonly handle: () => Promise<{ status: number; body: unknown }>;
}

/** One access log line per request, as the deployed stage writes (cdk/lib/roomkeeper-stack.ts): never a header or body. */
export interface AccessLogLine {
  readonly requestId: string;
  readonly method: string;
  /** The route key (`GET /v1/rooms/{roomId}`), or `-` when no route matched, as API Gateway logs it. */
  readonly route: string;
  /** null when the caller went away before any answer was sent. */
  readonly status: number | null;
  readonly latencyMs: number;
}

export interface ApiGatewayOptions {
  readonly routes: readonly RouteDefinition[];
  readonly handlers: Readonly<Record<string, HttpHandler>>;
  readonly ownRoutes?: readonly GatewayOwnRoute[];
  readonly port: number;
  readonly host?: string;
  /** Bodies above this are cut off before they reach a handler (handlers enforce their own, lower limit). */
  readonly maxRequestBytes?: number;
  /** API Gateway's integration timeout (30 s); past it the caller gets 503 UNAVAILABLE. */
  readonly timeoutMs?: number;
  /** Origins browsers may call from (lambdas/http/cors.ts). @default none: no CORS, as deployed without `corsOrigins` */
  readonly cors?: CorsPolicy;
  /** Where each request's access log line goes. @default an INFO line of the `api-gateway` logger */
  readonly accessLog?: (line: AccessLogLine) => void;
  /** Host names besides IP literals and localhost that requests may name (local/host-check.ts). @default none */
  readonly allowedHosts?: readonly string[];
  /** Takes WebSocket upgrades on the same port (local/live-gateway.ts). @default none: upgrades are dropped */
  readonly upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

export interface LocalApiGateway {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface CompiledRoute {
  readonly definition: RouteDefinition;
  readonly pattern: RegExp;
  readonly parameterNames: string[];
}

const log = childLogger('api-gateway');

function compile(definition: RouteDefinition): CompiledRoute {
  const parameterNames: string[] = [];
  const source = definition.path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!match?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(match[1]);
      // `{name+}`, API Gateway's greedy variable (last in a path): the rest of the path, slashes and all.
      return match[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  // API Gateway's HTTP API routes `/a/b/` to the route `/a/b` as well.
  return { definition, pattern: new RegExp(`^${source}/?$`), parameterNames };
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** What the gateway answers when a handler (or its own route) runs out of time: docs/api.md's 503 UNAVAILABLE. */
function timedOut(): HttpResult {
  return {
    statusCode: 503,
    headers: { 'content-type': 'application/json', 'retry-after': '1' },
    body: errorBody('UNAVAILABLE', 'The request could not finish in time; retry in 1 s.'),
  };
}

/** The handler's result, or `timedOut()` once `timeoutMs` has passed (the handler is left to finish). */
async function withinTimeout(work: Promise<HttpResult>, timeoutMs: number): Promise<HttpResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HttpResult>((resolve) => {
    timer = setTimeout(() => resolve(timedOut()), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Path parameters, percent-decoded as API Gateway hands them to Lambda; undefined when an
 * escape is malformed (`%`, `%zz`, or bytes that are not UTF-8), which `decodeURIComponent`
 * answers with a URIError. The gateway refuses such a path itself, before any handler or
 * authentication runs, as API Gateway would never invoke the function for it.
 */
function decodePathParameters(names: readonly string[], match: RegExpExecArray): Record<string, string> | undefined {
  try {
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
  } catch {
    return undefined;
  }
}

function malformedPathBody(path: string): string {
  return JSON.stringify({
    error: {
      code: 'BAD_REQUEST',
      message: 'The path holds a malformed percent escape.',
      details: { fields: [{ field: 'path', message: `is not a valid percent-encoded path: ${path.slice(0, 200)}` }] },
    },
  });
}

function sendWith(
  res: ServerResponse,
  result: HttpResult,
  gatewayHeaders: (headers: Record<string, string>) => Record<string, string>,
): void {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) own[name] = String(value);
  const headers = gatewayHeaders(own);
  if (result.cookies?.length) res.setHeader('set-cookie', result.cookies);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? ''));
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve('too-large');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Builds the API Gateway HTTP API (payload 2.0) event that Lambda would receive. */
function toHttpEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  requestId: string = randomUUID(),
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  const method = req.method ?? 'GET';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: url.search ? query : undefined,
    pathParameters,
    body: body.length > 0 ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: sourceIpOf(req.socket.remoteAddress, headers['x-forwarded-for']),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/**
 * The caller's address as API Gateway gives it. A caller on this machine may name another
 * one in `X-Forwarded-For` (its first entry), as a proxy in front of the local cloud would:
 * that is how region choice by the caller's location is tried from one machine. Callers
 * from elsewhere cannot.
 */
function sourceIpOf(remote: string | undefined, forwardedFor: string | undefined): string {
  const socket = remote ?? '127.0.0.1';
  const loopback = socket === '::1' || socket.startsWith('127.') || socket.startsWith('::ffff:127.');
  const claimed = forwardedFor?.split(',')[0]?.trim();
  return loopback && claimed && isIP(claimed) !== 0 ? claimed : socket;
}

/** What every request of one gateway is answered with: its options, compiled routes and limits. */
interface Gateway {
  readonly options: ApiGatewayOptions;
  readonly compiled: readonly CompiledRoute[];
  readonly maxRequestBytes: number;
  readonly timeoutMs: number;
}

/** One request as the gateway sees it: its id, and the route key once one matched. */
interface Exchange {
  readonly requestId: string;
  routeKey: string;
  /** Sends a result with what the gateway adds: CORS headers, and the request id as API Gateway's header. */
  readonly send: (res: ServerResponse, result: HttpResult) => void;
}

async function handle(gateway: Gateway, req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> {
  const { options } = gateway;
  const { send } = exchange;
  const method = req.method ?? 'GET';
  if (!isAllowedHost(req.headers.host, options.allowedHosts)) {
    req.resume();
    return send(res, {
      statusCode: 403,
      headers: { 'content-type': 'application/json' },
      body: errorBody('FORBIDDEN', disallowedHostMessage(req.headers.host)),
    });
  }
  // API Gateway answers a preflight itself, before any route matching, for any path.
  if (options.cors && isPreflight(method, req.headers)) {
    req.resume();
    res.writeHead(204, {
      ...preflightHeaders(options.cors, req.headers.origin),
      'apigw-requestid': exchange.requestId,
    });
    res.end();
    return;
  }
  const url = URL.parse(req.url ?? '/', 'http://localhost');
  if (!url) {
    req.resume();
    return send(res, {
      statusCode: 400,
      headers: { 'content-type': 'application/json' },
      body: malformedPathBody(''),
    });
  }
  const own = options.ownRoutes?.find((r) => r.method === method && r.path === url.pathname);
  if (own) {
    exchange.routeKey = `${own.method} ${own.path}`;
    const result = await withinTimeout(
      own.handle().then(({ status, body }) => ({
        statusCode: status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })),
      gateway.timeoutMs,
    );
    return send(res, result);
  }
  for (const route of gateway.compiled) {
    if (route.definition.method !== method) continue;
    const match = route.pattern.exec(url.pathname);
    if (match) return send(res, await invoke(gateway, req, exchange, url, route, match));
  }
  req.resume();
  send(res, {
    statusCode: 404,
    headers: { 'content-type': 'application/json' },
    body: errorBody('NOT_FOUND', `No route for ${method} ${url.pathname}.`),
  });
}

function disallowedHostMessage(host: string | undefined): string {
  return (
    `Host ${JSON.stringify(host?.slice(0, 100))} is not this machine's: use 127.0.0.1 or localhost, ` +
    'or list the name in ROOMKEEPER_ALLOWED_HOSTS.'
  );
}

/** A matched route: its body read within the limit, its path decoded, its handler called as Lambda would. */
async function invoke(
  gateway: Gateway,
  req: IncomingMessage,
  exchange: Exchange,
  url: URL,
  route: CompiledRoute,
  match: RegExpExecArray,
): Promise<HttpResult> {
  const body = await readBody(req, gateway.maxRequestBytes);
  if (body === 'too-large') {
    return {
      statusCode: 413,
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: errorBody('PAYLOAD_TOO_LARGE', `The request body exceeds ${gateway.maxRequestBytes} bytes.`),
    };
  }
  const pathParameters = decodePathParameters(route.parameterNames, match);
  if (!pathParameters) {
    return {
      statusCode: 400,
      headers: { 'content-type': 'application/json' },
      body: malformedPathBody(url.pathname),
    };
  }
  const routeKey = `${route.definition.method} ${route.definition.path}`;
  exchange.routeKey = routeKey;
  const handler = gateway.options.handlers[route.definition.id];
  if (!handler) throw new Error(`No handler registered for route ${route.definition.id}.`);
  const event = toHttpEvent(
    req,
    url,
    body,
    routeKey,
    route.parameterNames.length ? pathParameters : undefined,
    exchange.requestId,
  );
  const { timeoutMs } = gateway;
  return withinTimeout(handler(event, lambdaContext(route.definition.id, timeoutMs)), timeoutMs);
}

/**
 * An HTTP server that behaves like the deployed API Gateway HTTP API in front of the same
 * handlers: one route table, payload format 2.0, 404 for unknown routes, CORS at the gateway
 * (local/cors.ts), an `apigw-requestid` header and one access log line per request.
 */
export async function startApiGateway(options: ApiGatewayOptions): Promise<LocalApiGateway> {
  const gateway: Gateway = {
    options,
    compiled: options.routes.map(compile),
    maxRequestBytes: options.maxRequestBytes ?? 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 30_000,
  };
  const accessLog = options.accessLog ?? ((line: AccessLogLine) => log.info('request', { ...line }));

  const server: Server = createServer((req, res) => {
    const startedAt = performance.now();
    const requestId = randomUUID();
    const exchange: Exchange = {
      requestId,
      routeKey: '-',
      send: (response, result) =>
        sendWith(response, result, (headers) => ({
          ...withCorsHeaders(options.cors, req.headers.origin, headers),
          'apigw-requestid': requestId,
        })),
    };
    // Once per request, however it ends (answered, or the caller went away).
    res.once('close', () =>
      accessLog({
        requestId: exchange.requestId,
        method: req.method ?? '-',
        route: exchange.routeKey,
        status: res.headersSent ? res.statusCode : null,
        latencyMs: Math.round((performance.now() - startedAt) * 10) / 10,
      }),
    );
    handle(gateway, req, res, exchange).catch((error: unknown) => {
      log.error('gateway failure', { error: error as Error, requestId: exchange.requestId });
      if (!res.headersSent)
        exchange.send(res, {
          statusCode: 500,
          headers: { 'content-type': 'application/json' },
          body: errorBody('INTERNAL', 'Internal error.'),
        });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  const { upgrade } = options;
  if (upgrade) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (isAllowedHost(req.headers.host, options.allowedHosts)) return upgrade(req, socket, head);
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
