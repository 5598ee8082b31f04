import * as z from 'zod';
import { PlatformError } from '../../../core/errors';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

class MembershipNotFoundError extends PlatformError {
  override readonly name = 'MembershipNotFoundError';
  readonly code = 'NOT_FOUND';
}

/**
 * Cancels the caller's reservation or leaves the room: only ever the caller's own slot. An
 * invited account declines this way: its invite to the room goes too (best effort: it also
 * expires by itself).
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params, principal }) => {
    const p = platform();
    const left = await p.rooms.leaveAsPlayer(params.roomId, principal.account, p.now());
    await p.invites.remove(principal.account, params.roomId).catch(() => undefined);
    if (!left) throw new MembershipNotFoundError(`You hold no slot in room '${params.roomId}'.`);
    return { status: 204 };
  },
);
