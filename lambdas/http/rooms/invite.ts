import * as z from 'zod';
import { inviteToRoom } from '../../../core/invites/invite';
import { tellInvited } from '../../../core/invites/notify';
import { inviteRequestSchema } from '../../../core/invites/schema';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/**
 * `POST /v1/rooms/{roomId}/invites`: reserved slots for the invited accounts and their invites,
 * in one transaction (core/invites/invite.ts); then each invited account hears of it on its
 * open live sockets.
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: inviteRequestSchema },
  async ({ params, body, principal }) => {
    const p = platform();
    const result = await inviteToRoom(
      { roomId: params.roomId, inviter: principal.account, accounts: body.accounts },
      { rooms: p.rooms, invites: p.invites, abuse: p.abuse, now: p.now, sleep: (ms) => p.clock.sleep(ms) },
    );
    const invite = { roomId: params.roomId, invitedBy: result.invitedBy, expiresAt: result.expiresAt };
    await tellInvited(invite, result.invited, { sockets: p.liveSubscriptions, sender: p.connectionSender });
    return roomResponse(201, { room: sessionRoomView(result.read.room, result.read.doc, p.now(), principal.account) });
  },
);
