import { createHash } from 'node:crypto';
import * as z from 'zod';
import { IdempotencyKeyInvalidError } from './errors';

/**
 * The rules of `Idempotency-Key` (docs/api.md), as pure functions of the request and `now`.
 *
 * ```
 *  first request        duplicates                                  10 min after the first
 *  |-- claimed (in progress) --|-- completed: the answer is replayed --|-- key free again
 *  |<---- lease (60 s) ---->|   a claim never completed is taken over after its lease
 * ```
 */
export const idempotencyWindowMs = 10 * 60 * 1000;

/**
 * How long a claim holds without completing before another request may take it over: longer
 * than any route's timeout (29 s), so only a crashed or killed request loses its claim.
 */
export const inProgressLeaseMs = 60 * 1000;

/** How long a duplicate waits for the first request to finish before answering 503 with Retry-After. */
export const inProgressWaitMs = 3000;

/** The `Idempotency-Key` header, as validated and as documented in the OpenAPI document. */
export const idempotencyKeyHeaderSchema = z
  .string()
  .regex(/^[\x20-\x7E]{1,64}$/, 'must be 1 to 64 printable ASCII characters')
  .optional()
  .describe(
    'Client string of 1 to 64 printable ASCII characters. The same key from the same account within 10 minutes gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing more; the same key with a different request is 400; while the first request runs, a repeat waits up to 3 s, then gets 503 UNAVAILABLE with Retry-After.',
  );

/** The header's value, checked. Absent → undefined; present but malformed → 400. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  const parsed = idempotencyKeyHeaderSchema.safeParse(header);
  if (!parsed.success) throw new IdempotencyKeyInvalidError();
  return parsed.data;
}

/** The key is stored only as a hash: the sort key stays short and the client's string is not kept. */
export function hashIdempotencyKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * What makes two requests "the same": the operation, its path parameters and its validated
 * body (defaults filled in), as JSON with sorted keys, hashed.
 */
export function requestFingerprint(operation: string, params: unknown, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ operation, params: params ?? null, body: body ?? null }))
    .digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A response as replayed: status, headers and body. */
export interface StoredResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * Whether an answer is final, so a retry with the same key must get it again: every success,
 * and the business refusals (400, 404, 409, 412). Not final: 401/403 (a token or a ban can
 * change), 429 (the allowance comes back) and every 5xx (a retry may succeed).
 */
export function isFinalAnswer(status: number): boolean {
  return (status >= 200 && status < 300) || [400, 404, 409, 412].includes(status);
}
