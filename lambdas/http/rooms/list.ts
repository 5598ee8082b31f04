import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { RequestInvalidError } from '../../../core/errors';
import { gameIdSchema, gameVersionSchema } from '../../../core/gameservers/schema';
import { toRoomView, type Room } from '../../../core/rooms/model';
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

const pageKeySchema = z.strictObject({ pk: z.string(), sk: z.string(), gsi2pk: z.string(), gsi2sk: z.string() });

/** A page token is only ever a key of this index and partition: anything else is a 400, never a storage error. */
function decodeToken(token: string | undefined, partition: string): Record<string, unknown> | undefined {
  if (!token) return undefined;
  try {
    const key = pageKeySchema.parse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    if (key.gsi2pk === partition) return key;
  } catch {
    // falls through to the error below
  }
  throw new RequestInvalidError('nextToken is not a token this API issued.', [
    { field: 'query.nextToken', message: 'invalid' },
  ]);
}

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
      ExclusiveStartKey: decodeToken(query.nextToken, partition),
    }),
  );
  const rooms = (page.Items ?? []).map((item) => toRoomView(item as unknown as Room));
  const nextToken = page.LastEvaluatedKey
    ? Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64url')
    : undefined;
  return { status: 200, body: { rooms, ...(nextToken ? { nextToken } : {}) } };
});
