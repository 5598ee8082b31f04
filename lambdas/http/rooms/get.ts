import { z } from 'zod';
import { toRoomView } from '../../../core/rooms/model';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params }) => ({ status: 200, body: { room: toRoomView(await platform().rooms.get(params.roomId)) } }),
);
