import * as z from 'zod';
import { routes } from './routes';

/**
 * The API's CORS policy, described once: the CDK stack hands it to API Gateway
 * (`corsPreflight`) and the local gateway applies it the same way (local/cors.ts). Only the
 * allowed origins are a setting; what a browser game may send and read follows from the API.
 * CORS lives at the gateway, as in AWS: the handlers never see a preflight nor add a header.
 */
export interface CorsPolicy {
  /** Exact origins (`https://game.example.com`), or `*` for any. */
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  readonly allowHeaders: readonly string[];
  readonly exposeHeaders: readonly string[];
  /** How long a browser may reuse a preflight answer. */
  readonly maxAgeS: number;
}

export class CorsOriginInvalidError extends Error {
  override readonly name = 'CorsOriginInvalidError';
}

/**
 * `*`, or an origin exactly as a browser sends it in `Origin`: scheme, lower-case host and
 * port only (no path, no trailing slash, no default port), since origins match as strings.
 */
const corsOriginSchema = z.union([
  z.literal('*'),
  z.string().refine((value) => URL.parse(value)?.origin === value && /^https?:/.test(value), {
    message: 'must be an origin such as https://game.example.com or http://localhost:5173 (no path), or *',
  }),
]);

export const corsOriginsSchema = z.array(corsOriginSchema).max(100);

/**
 * Origins from a comma-separated list (`-c corsOrigins=…`, `--cors-origins`,
 * `ROOMKEEPER_CORS_ORIGINS`); `source` names where it came from in the error.
 * @throws CorsOriginInvalidError naming the first origin that is not one.
 */
export function parseCorsOrigins(list: string, source: string): string[] {
  const origins = list
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    const parsed = corsOriginSchema.safeParse(origin);
    if (!parsed.success) throw new CorsOriginInvalidError(`${source}: "${origin}" ${parsed.error.issues[0]?.message}.`);
  }
  return origins;
}

/** Headers a browser game sends: its token, JSON bodies, and the API's two request headers. */
const allowHeaders = ['authorization', 'content-type', 'idempotency-key', 'if-match'];
/** Headers a browser game may read: the room's change number, when to retry, and the id to quote. */
const exposeHeaders = ['etag', 'retry-after', 'x-request-id'];

/** The policy for these origins; none: no CORS at all (browsers on other origins are refused). */
export function corsPolicy(allowOrigins: readonly string[]): CorsPolicy | undefined {
  if (allowOrigins.length === 0) return undefined;
  return {
    allowOrigins: [...new Set(allowOrigins)],
    allowMethods: [...new Set(routes.map((route) => route.method))],
    allowHeaders,
    exposeHeaders,
    maxAgeS: 3_600,
  };
}
