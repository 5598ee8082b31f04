import * as z from 'zod';
import { RequestInvalidError } from '../errors';
import { SessionPreconditionFailedError } from './session-errors';

/**
 * `If-Match` on the session PATCH routes: one change number, quoted as the `ETag` carries it
 * (`"12"`) or bare (`12`), or `*` (any: no precondition). Weak tags (`W/"12"`) and lists are
 * refused: a change number is exact, so only a strong comparison makes sense.
 */
export const ifMatchHeaderSchema = z
  .string()
  .regex(/^\s*(\*|"\d{1,15}"|\d{1,15})\s*$/, 'must be one change number, "12" or 12, or *')
  .optional()
  .describe(
    'The change number the write is based on, as the ETag carries it ("12"); a bare 12 is accepted too, and * means any. A stale one answers 412 PRECONDITION_FAILED.',
  );

/**
 * The change number an `If-Match` header demands, or undefined when it demands none (absent
 * or `*`). Malformed → 400 naming the header.
 *
 * @example
 * parseIfMatch('"12"') // 12
 * parseIfMatch('*')    // undefined
 */
export function parseIfMatch(header: string | undefined): number | undefined {
  const parsed = ifMatchHeaderSchema.safeParse(header);
  if (!parsed.success) {
    throw new RequestInvalidError('If-Match must be one change number, such as "12".', [
      { field: 'header.if-match', message: 'must be one change number, "12" or 12, or *' },
    ]);
  }
  const value = parsed.data?.trim();
  if (value === undefined || value === '*') return undefined;
  return Number(value.replaceAll('"', ''));
}

/** The `ETag` of a room response: its change number, quoted as RFC 9110 wants an entity tag. */
export function formatETag(changeNumber: number): string {
  return `"${changeNumber}"`;
}

/**
 * Judges an `If-Match` against the session's current change number. The store repeats the
 * same test inside its write condition; this answers early when the read already shows it.
 */
export function assertIfMatch(roomId: string, expected: number | undefined, current: number): void {
  if (expected !== undefined && expected !== current) {
    throw new SessionPreconditionFailedError(roomId, expected, current);
  }
}
