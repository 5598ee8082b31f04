import * as z from 'zod';
import { roomIdSchema } from '../../../core/rooms/schema';
import { readSessionAs, readSessionAsAdmin } from '../../../core/rooms/patch';
import { adminRoomView, roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/**
 * One consistent read: the session document holds the room and its members, judged at the
 * platform's `now` (expired members gone, an empty session past `sessionEmptyMs` ended: 404,
 * a private one 404 to non-members). An admin token reads any room, with what the operators'
 * console shows of it (core/rooms/room-response.ts `adminRoomView`).
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params, principal }) => {
    const p = platform();
    const deps = sessionDependencies(p);
    if (principal.scopes.includes('admin')) {
      const read = await readSessionAsAdmin(params.roomId, deps);
      return roomResponse(200, { room: adminRoomView(read.room, read.doc, p.now(), principal.account) });
    }
    const read = await readSessionAs(params.roomId, principal.account, deps);
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
