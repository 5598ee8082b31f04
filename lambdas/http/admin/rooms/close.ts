import * as z from 'zod';
import { closeRoomByAdmin } from '../../../../core/rooms/close';
import { roomOnlyView, roomResponse } from '../../../../core/rooms/room-response';
import { roomIdSchema } from '../../../../core/rooms/schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** `POST /v1/admin/rooms/{roomId}/close`: an operator ends a live room and stops its server. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params }) => {
    const p = platform();
    const room = await closeRoomByAdmin(params.roomId, {
      rooms: p.rooms,
      spawner: p.spawner,
      slots: p.costs.slots,
      now: p.now,
    });
    return roomResponse(200, { room: roomOnlyView(room) });
  },
);
