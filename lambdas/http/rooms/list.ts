import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { gameIdSchema, gameVersionSchema } from '../../../core/gameservers/schema';
import { toRoomView, type Room } from '../../../core/rooms/model';
import { decodePageToken, encodePageToken } from '../../../core/rooms/page-token';
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

/** Open rooms of one game version in one region, oldest first, through an index (no scan). */
export const handler = httpHandler({ auth: {}, query: listRoomsQuerySchema }, async ({ query }) => {
  const p = platform();
  const region = query.region ?? p.config.roomRegion;
  const partition = `LIVE#${query.gameId}#${query.version}#${region}`;
  const page = await p.db.send(
    new QueryCommand({
      TableName: p.config.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :live',
      FilterExpression: '#state = :ready AND players < maxPlayers',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':live': partition, ':ready': 'ready' },
      Limit: query.limit,
      ExclusiveStartKey: decodePageToken(query.nextToken, partition),
    }),
  );
  const rooms = (page.Items ?? []).map((item) => toRoomView(item as unknown as Room));
  const nextToken = page.LastEvaluatedKey ? encodePageToken(page.LastEvaluatedKey) : undefined;
  return { status: 200, body: { rooms, ...(nextToken ? { nextToken } : {}) } };
});
