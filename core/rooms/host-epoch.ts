import * as z from 'zod';
import { PlatformError, RequestInvalidError } from '../errors';

/**
 * `X-Host-Epoch: <n>`: the epoch an arbiter write is made in (docs/api.md "Live sessions").
 * The write holds only while the room's arbiter is still the caller at that epoch, so a former
 * arbiter that was replaced (partitioned, slow, restarted) can never act in its place.
 */
export const hostEpochHeaderSchema = z
  .string()
  .regex(/^\s*\d{1,15}\s*$/, 'must be one epoch, such as 3')
  .describe("The arbiter's epoch, as the room view's host.epoch shows it. Not current: 409 STALE_EPOCH.");

/**
 * The epoch an `X-Host-Epoch` header names; undefined when absent. Malformed → 400 naming the
 * header; `required` and absent → 400 as well (an arbiter-only route).
 */
export function parseHostEpoch(header: string | undefined, required: boolean): number | undefined {
  if (header === undefined && !required) return undefined;
  const parsed = hostEpochHeaderSchema.safeParse(header);
  if (!parsed.success) {
    const message = header === undefined ? 'is required: only the arbiter makes this write' : 'must be one epoch';
    throw new RequestInvalidError(`X-Host-Epoch ${message}.`, [{ field: 'header.x-host-epoch', message }]);
  }
  return Number(parsed.data.trim());
}

/**
 * An arbiter write refused: the room's arbiter is not the caller at the epoch it named (an
 * election moved it on, or it never was). `details.epoch`: the room's current epoch, so the
 * caller reads the room and learns who arbitrates now.
 */
export class StaleEpochError extends PlatformError {
  override readonly name = 'StaleEpochError';
  readonly code = 'STALE_EPOCH';
  constructor(
    readonly roomId: string,
    readonly epoch: number | undefined,
  ) {
    super(
      epoch === undefined
        ? `Room ${roomId} has no arbiter among its members.`
        : `Room ${roomId} is at host epoch ${epoch}, and you are not its arbiter at the epoch you named.`,
      { details: { roomId, ...(epoch === undefined ? {} : { epoch }) } },
    );
  }
}
