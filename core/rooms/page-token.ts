import * as z from 'zod';
import { RequestInvalidError } from '../errors';
import { keys } from '../infra/keys';
import { roomIdSchema } from './schema';

/**
 * `nextToken` of `GET /v1/rooms`: the index key DynamoDB returned as `LastEvaluatedKey`,
 * as base64url JSON. A token comes back from the client, so it is input like any other: it
 * is accepted only when it is exactly the key of a room in the listed partition, as
 * `keys.room` and `keys.roomIndexes` build it. Anything else (empty keys, another item's
 * key, another partition, oversized values) is a 400 naming `query.nextToken`, never a
 * ValidationException from DynamoDB.
 */
const pageKeySchema = z.strictObject({
  pk: z.string().startsWith('ROOM#'),
  sk: z.literal('ROOM'),
  gsi2pk: z.string().min(1),
  gsi2sk: z.string().min(1).max(256),
});

export type RoomPageKey = z.output<typeof pageKeySchema>;

export function encodePageToken(lastEvaluatedKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(lastEvaluatedKey)).toString('base64url');
}

/** The exclusive start key a token stands for, if it is a room key of `partition` (the room's gsi2pk). */
export function decodePageToken(token: string | undefined, partition: string): RoomPageKey | undefined {
  if (token === undefined || token === '') return undefined;
  const key = parse(token);
  if (key && key.gsi2pk === partition && isRoomKey(key)) return key;
  throw new RequestInvalidError('nextToken is not a token this API issued for this listing.', [
    { field: 'query.nextToken', message: 'is not a page token of this listing' },
  ]);
}

function parse(token: string): RoomPageKey | undefined {
  try {
    const parsed = pageKeySchema.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** pk, sk and the index sort key must all name the same room, as the room item carries them. */
function isRoomKey(key: RoomPageKey): boolean {
  const roomId = key.pk.slice('ROOM#'.length);
  if (!roomIdSchema.safeParse(roomId).success) return false;
  const own = keys.room(roomId);
  if (own.pk !== key.pk || own.sk !== key.sk) return false;
  const separator = key.gsi2sk.lastIndexOf('#');
  const createdAt = key.gsi2sk.slice(0, separator);
  return key.gsi2sk.slice(separator + 1) === roomId && z.iso.datetime().safeParse(createdAt).success;
}
