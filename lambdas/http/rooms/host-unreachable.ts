import * as z from 'zod';
import { hostUnreachableRequestSchema, reportHostUnreachable } from '../../../core/rooms/arbiter-writes';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/**
 * `POST /v1/rooms/{roomId}/host/unreachable` `{ epoch }`: an active member reports that it
 * cannot reach the arbiter of that epoch. Counts toward the arbiter's silence; never elects.
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: hostUnreachableRequestSchema },
  async ({ params, body, principal }) => {
    const p = platform();
    await p.abuse.assertNotBanned(principal.account, p.now());
    const read = await reportHostUnreachable(
      { roomId: params.roomId, account: principal.account, epoch: body.epoch },
      sessionDependencies(p),
    );
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
