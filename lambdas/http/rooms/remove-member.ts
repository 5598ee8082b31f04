import * as z from 'zod';
import { accountSchema } from '../../../core/abuse/bans';
import { removeMemberAsArbiter } from '../../../core/rooms/arbiter-writes';
import { parseHostEpoch } from '../../../core/rooms/host-epoch';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/**
 * `DELETE /v1/rooms/{roomId}/members/{account}` (`X-Host-Epoch`): the arbiter removes a member
 * it cannot reach. `…/members/me` is the caller's own leave (lambdas/http/rooms/leave.ts).
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema, account: accountSchema }) },
  async ({ params, principal, headers }) => {
    const p = platform();
    await p.abuse.assertNotBanned(principal.account, p.now());
    const epoch = parseHostEpoch(headers['x-host-epoch'], true) as number;
    const read = await removeMemberAsArbiter(
      { roomId: params.roomId, account: principal.account, epoch, member: params.account },
      sessionDependencies(p),
    );
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
