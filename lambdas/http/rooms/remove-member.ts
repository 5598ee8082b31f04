import * as z from 'zod';
import { accountSchema } from '../../../core/abuse/bans';
import { PlatformError } from '../../../core/errors';
import { removeMemberAsArbiter } from '../../../core/rooms/arbiter-writes';
import { parseHostEpoch } from '../../../core/rooms/host-epoch';
import { RoomNotFoundError } from '../../../core/rooms/errors';
import { readSessionAsAdmin } from '../../../core/rooms/patch';
import { adminRoomView, roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

class MemberNotFoundError extends PlatformError {
  override readonly name = 'MemberNotFoundError';
  readonly code = 'NOT_FOUND';
}

/**
 * `DELETE /v1/rooms/{roomId}/members/{account}` (`X-Host-Epoch`): the arbiter removes a member
 * it cannot reach. `…/members/me` is the caller's own leave (lambdas/http/rooms/leave.ts).
 *
 * An admin without `X-Host-Epoch` removes any member as that member's own leave would: an
 * operator acts outside the session's election, so no epoch fences it, and the write is the
 * same conditional removal a leave makes (its slot frees, its key stops working).
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema, account: accountSchema }) },
  async ({ params, principal, headers }) => {
    const p = platform();
    if (principal.scopes.includes('admin') && headers['x-host-epoch'] === undefined) {
      if (!(await p.rooms.leaveAsPlayer(params.roomId, params.account, p.now())))
        throw new MemberNotFoundError(`Room '${params.roomId}' has no member '${params.account}' to remove.`);
      const read = await readSessionAsAdmin(params.roomId, sessionDependencies(p)).catch((error: unknown) => {
        // A session that its last member's removal ended has no view left to show.
        if (error instanceof RoomNotFoundError) return undefined;
        throw error;
      });
      if (!read) return { status: 204 };
      return roomResponse(200, { room: adminRoomView(read.room, read.doc, p.now(), principal.account) });
    }
    await p.abuse.assertNotBanned(principal.account, p.now());
    const epoch = parseHostEpoch(headers['x-host-epoch'], true) as number;
    const read = await removeMemberAsArbiter(
      { roomId: params.roomId, account: principal.account, epoch, member: params.account },
      sessionDependencies(p),
    );
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
