import * as z from 'zod';
import { claimHost } from '../../../core/rooms/host-claim';
import { roomIdSchema } from '../../../core/rooms/schema';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { claimHostRequestSchema } from '../../../core/rooms/view-schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/** `POST /v1/rooms/{roomId}/host`: a live, active member claims the arbiter's place (core/rooms/host.ts). */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: claimHostRequestSchema },
  async ({ params, body, principal }) => {
    const p = platform();
    // A banned account writes nothing more, in rooms it already holds either.
    await p.abuse.assertNotBanned(principal.account, p.now());
    const read = await claimHost(
      { roomId: params.roomId, account: principal.account, epoch: body.epoch },
      sessionDependencies(p),
    );
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
