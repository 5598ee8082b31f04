import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { PlatformError, RequestInvalidError, RequestTooLargeError, type FieldIssue } from '../../core/errors';
import { bearerToken, requireScope, type Principal, type TokenVerifier } from '../../core/auth/tokens';
import { asDependencyUnavailable } from '../../core/infra/dependency-errors';
import { parseJsonBody } from '../../core/protocol/json-body';
import { childLogger } from '../../core/infra/logger';
import { platform } from '../dependencies';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

/** What the shared middlewares learned about a request before the route's action runs. */
interface RequestContext extends Context {
  jsonBody?: unknown;
  principal?: Principal;
}

type Schema = z.ZodType;
type Parsed<S> = S extends Schema ? z.output<S> : undefined;

export interface RouteSpec<B, P, Q> {
  /** `public` routes take no token; every other route needs one, and `scope` if given. */
  readonly auth: 'public' | { readonly scope?: string };
  readonly body?: B;
  readonly params?: P;
  readonly query?: Q;
}

export interface HttpRequest<B, P, Q> {
  readonly body: Parsed<B>;
  readonly params: Parsed<P>;
  readonly query: Parsed<Q>;
  /** Present on every route that is not `public`. */
  readonly principal: Principal;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly requestId: string;
  readonly sourceIp: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpDependencies {
  readonly verifyToken: TokenVerifier;
  readonly maxBodyBytes: number;
}

const log = childLogger('http');

/** The platform's verifier and limit: built and reset with every other adapter (lambdas/dependencies.ts). */
function platformHttpDependencies(): HttpDependencies {
  const p = platform();
  return { verifyToken: p.verifyToken, maxBodyBytes: p.config.maxBodyBytes };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

/** Maps every failure to the docs/api.md error body. Only our typed errors show their message. */
function errorResponses(): MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    onError: (request) => {
      const requestId = request.event.requestContext?.requestId ?? 'unknown';
      // A dependency outage is the caller's 503 UNAVAILABLE with Retry-After, never a 500.
      const unavailable = request.error instanceof PlatformError ? undefined : asDependencyUnavailable(request.error);
      if (unavailable) log.warn('dependency unavailable', { requestId, error: request.error as Error });
      const error = unavailable ?? request.error;
      if (error instanceof PlatformError) {
        request.response = json(
          error.status,
          {
            error: {
              code: error.code,
              message: error.message,
              ...(error.details === undefined ? {} : { details: error.details }),
            },
          },
          { ...error.headers, 'x-request-id': requestId },
        );
        return;
      }
      log.error('unhandled error', { requestId, error: error as Error });
      request.response = json(
        500,
        { error: { code: 'INTERNAL', message: `Internal error; quote request ${requestId} when reporting it.` } },
        { 'x-request-id': requestId },
      );
    },
  };
}

/** Enforces the body size limit and parses JSON before anything else looks at the body. */
function jsonBody(deps: () => HttpDependencies): MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: (request) => {
      // The context object can outlive one invocation (a reused Lambda context, a test's):
      // nothing of an earlier request may leak into this one.
      request.context.jsonBody = undefined;
      request.context.principal = undefined;
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === '') return;
      const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      const { maxBodyBytes } = deps();
      if (Buffer.byteLength(text, 'utf8') > maxBodyBytes) throw new RequestTooLargeError(maxBodyBytes);
      request.context.jsonBody = parseJsonBody(text);
    },
  };
}

function authentication(
  auth: RouteSpec<unknown, unknown, unknown>['auth'],
  deps: () => HttpDependencies,
): MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: async (request) => {
      if (auth === 'public') return;
      const principal = await deps().verifyToken(bearerToken(request.event.headers?.authorization));
      if (auth.scope) requireScope(principal, auth.scope);
      request.context.principal = principal;
    },
  };
}

function issuesOf(source: string, error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [source, ...issue.path.map(String)].join('.');
    return keys.length > 0
      ? { field: keys.map((key) => `${path}.${key}`).join(', '), message: issue.message }
      : { field: path, message: issue.message };
  });
}

function parsePart<S>(source: string, schema: S | undefined, value: unknown): Parsed<S> {
  if (schema === undefined) return undefined as Parsed<S>;
  const result = (schema as Schema).safeParse(value);
  if (!result.success) {
    const issues = issuesOf(source, result.error);
    throw new RequestInvalidError(
      `Invalid ${source}: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`,
      issues,
    );
  }
  return result.data as Parsed<S>;
}

/**
 * Wraps one route's action in the shared middleware stack: size limit and JSON parsing,
 * authentication, zod validation of body, path and query, and one error mapping. The
 * action gets a typed request and returns status and body; it never sees the raw event.
 *
 * @example
 * export const handler = httpHandler({ auth: {}, params: z.object({ roomId }) },
 *   async ({ params }) => ({ status: 200, body: { room: await rooms().get(params.roomId) } }));
 */
export function httpHandler<B = undefined, P = undefined, Q = undefined>(
  spec: RouteSpec<B, P, Q>,
  action: (request: HttpRequest<B, P, Q>) => Promise<HttpResponse>,
  deps: () => HttpDependencies = platformHttpDependencies,
): HttpHandler {
  const handler = middy<HttpEvent, HttpResult, Error, RequestContext>({ timeoutEarlyInMillis: 0 })
    .use(errorResponses())
    .use(jsonBody(deps))
    .use(authentication(spec.auth, deps))
    .handler(async (event, context) => {
      const request: HttpRequest<B, P, Q> = {
        body: parsePart('body', spec.body, context.jsonBody ?? (spec.body ? {} : undefined)),
        params: parsePart('path', spec.params, event.pathParameters ?? {}),
        query: parsePart('query', spec.query, event.queryStringParameters ?? {}),
        principal: context.principal ?? { account: '', scopes: [] },
        headers: event.headers ?? {},
        requestId: event.requestContext?.requestId ?? 'unknown',
        sourceIp: event.requestContext?.http?.sourceIp ?? '',
      };
      const response = await action(request);
      return json(response.status, response.body, { ...response.headers, 'x-request-id': request.requestId });
    });
  return handler as unknown as HttpHandler;
}
