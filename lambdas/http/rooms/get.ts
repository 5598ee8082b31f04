import { z } from 'zod';
import { RoomNotFoundError } from '../../../core/rooms/errors';
import { roomIdSchema } from '../../../core/rooms/schema';
import { roomViewAt } from '../../../core/sessions/view';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/** One consistent read: the session document holds the room and its members. */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params }) => {
    const p = platform();
    const read = await p.sessions.read(params.roomId);
    if (!read) throw new RoomNotFoundError(params.roomId);
    return { status: 200, body: { room: roomViewAt(read.room, read.doc, p.now()) } };
  },
);
