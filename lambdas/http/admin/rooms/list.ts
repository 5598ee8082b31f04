import * as z from 'zod';
import { gameIdSchema, gameVersionSchema } from '../../../../core/gameservers/schema';
import { listLiveRooms } from '../../../../core/rooms/admin-listing';
import { protocolViewOf, roomOnlyView } from '../../../../core/rooms/room-response';
import { templateNameSchema } from '../../../../core/templates/template-schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

export const listAdminRoomsQuerySchema = z
  .strictObject({
    gameId: gameIdSchema.optional(),
    version: gameVersionSchema.optional(),
    region: z.string().min(1).max(32).optional(),
    state: z.enum(['spawning', 'ready']).optional(),
    template: templateNameSchema.optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(50)
      .describe('Index entries this page reads: a filtered page may show fewer rooms (even none) and a nextToken.'),
    nextToken: z.string().max(2048).optional(),
  })
  .meta({ id: 'ListAdminRoomsQuery' });

/**
 * `GET /v1/admin/rooms`: the live rooms of every game, a page of the sweeper's index at a time
 * (no scan), filtered after the read (core/rooms/admin-listing.ts), shown without members.
 */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, query: listAdminRoomsQuerySchema },
  async ({ query }) => {
    const { limit, nextToken, ...filter } = query;
    const page = await listLiveRooms(platform().liveRooms, filter, nextToken, limit);
    return {
      status: 200,
      body: {
        rooms: page.rooms.map((room) => ({ ...roomOnlyView(room), ...protocolViewOf(room) })),
        ...(page.nextToken ? { nextToken: page.nextToken } : {}),
      },
    };
  },
);
