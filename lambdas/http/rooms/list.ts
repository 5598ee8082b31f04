import * as z from 'zod';
import { gameIdSchema, gameVersionSchema } from '../../../core/gameservers/schema';
import { roomOnlyView } from '../../../core/rooms/room-response';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

export const listRoomsQuerySchema = z
  .strictObject({
    gameId: gameIdSchema,
    version: gameVersionSchema,
    region: z.string().min(1).max(32).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
    nextToken: z.string().max(2048).optional(),
  })
  .meta({ id: 'ListRoomsQuery' });

/**
 * Open rooms of one game version in one region, oldest first, through an index (no scan):
 * only sessions anyone may join (visibility and joinability `open`), shown without members.
 */
export const handler = httpHandler({ auth: {}, query: listRoomsQuerySchema }, async ({ query }) => {
  const p = platform();
  const { gameId, version, limit, nextToken } = query;
  const page = await p.roomListing.listOpen(
    { gameId, version, region: query.region ?? p.config.roomRegion },
    nextToken,
    limit,
  );
  return {
    status: 200,
    body: { rooms: page.rooms.map(roomOnlyView), ...(page.nextToken ? { nextToken: page.nextToken } : {}) },
  };
});
