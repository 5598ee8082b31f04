import * as z from 'zod';
import { roomIdSchema } from '../../../core/rooms/schema';
import { readSessionAs } from '../../../core/rooms/patch';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/**
 * One consistent read: the session document holds the room and its members, judged at the
 * platform's `now` (expired members gone, an empty session past `sessionEmptyMs` ended: 404,
 * a private one 404 to non-members).
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params, principal }) => {
    const p = platform();
    const read = await readSessionAs(params.roomId, principal.account, sessionDependencies(p));
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
