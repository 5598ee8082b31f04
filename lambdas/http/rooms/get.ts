import { z } from 'zod';
import { roomIdSchema } from '../../../core/rooms/schema';
import { roomViewAt } from '../../../core/rooms/view';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params }) => {
    const p = platform();
    const room = await p.rooms.get(params.roomId);
    const members = await p.members.list(room.roomId);
    return { status: 200, body: { room: roomViewAt(room, members, p.now()) } };
  },
);
