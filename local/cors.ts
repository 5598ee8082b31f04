import type { IncomingHttpHeaders } from 'node:http';
import type { CorsPolicy } from '../lambdas/http/cors';

/**
 * CORS as API Gateway's HTTP API applies a `corsConfiguration`, in front of the same routes:
 * - A preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is answered by
 *   the gateway itself, 204, whatever the path: no route or handler runs. From an allowed
 *   origin it carries the Access-Control-Allow-* headers; from any other, none, and the
 *   browser refuses the real request.
 * - Every other response to a request from an allowed origin gets
 *   `Access-Control-Allow-Origin` (and the exposed headers); CORS headers a handler set are
 *   dropped, as API Gateway ignores the integration's.
 * - An OPTIONS that is not a preflight goes to the routes (404: none is OPTIONS).
 */
export function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}

/** The value of `Access-Control-Allow-Origin` for this `Origin`, or undefined when it is not allowed. */
function allowedOrigin(policy: CorsPolicy | undefined, origin: string | undefined): string | undefined {
  if (!policy || origin === undefined) return undefined;
  if (policy.allowOrigins.includes('*')) return '*';
  return policy.allowOrigins.includes(origin) ? origin : undefined;
}

/** The headers of the gateway's 204 answer to a preflight. */
export function preflightHeaders(policy: CorsPolicy | undefined, origin: string | undefined): Record<string, string> {
  const allowed = allowedOrigin(policy, origin);
  if (!policy || allowed === undefined) return {};
  return {
    'access-control-allow-origin': allowed,
    'access-control-allow-methods': policy.allowMethods.join(','),
    'access-control-allow-headers': policy.allowHeaders.join(','),
    'access-control-max-age': String(policy.maxAgeS),
    ...(allowed === '*' ? {} : { vary: 'Origin' }),
  };
}

/** `headers` with the CORS headers of an actual (non-preflight) response for this `Origin`. */
export function withCorsHeaders(
  policy: CorsPolicy | undefined,
  origin: string | undefined,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  if (!policy) return { ...headers };
  const own = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('access-control-')),
  );
  // The answer depends on the caller's Origin unless any origin is allowed: say so to caches.
  if (!policy.allowOrigins.includes('*')) own.vary = own.vary ? `${own.vary}, Origin` : 'Origin';
  const allowed = allowedOrigin(policy, origin);
  if (allowed === undefined) return own;
  return {
    ...own,
    'access-control-allow-origin': allowed,
    'access-control-expose-headers': policy.exposeHeaders.join(','),
  };
}
