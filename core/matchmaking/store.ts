import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';

/** A bucket room with free slots as the bucket's index shows it (gsi1 projects these fields). */
export interface OpenRoom {
  readonly roomId: string;
  readonly players: number;
  readonly maxPlayers: number;
}

export interface FillingPointer {
  readonly roomId: string;
  readonly since: string;
}

/**
 * One "filling room" pointer per matchmaking bucket: the room new players go to. Moving it
 * is a conditional write on the room it pointed at, so a stampede of players who all find
 * the room full elects exactly one of them to create the next room.
 */
export class FillingRoomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(bucket: string): Promise<FillingPointer | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.fillingRoom(bucket), ConsistentRead: true }),
    );
    return Item ? { roomId: String(Item.roomId), since: String(Item.since) } : undefined;
  }

  /** Points the bucket at `roomId` if it points nowhere (`expected` undefined) or still at `expected`. */
  async move(bucket: string, roomId: string, expected: string | undefined, now: Date): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.fillingRoom(bucket), type: 'fillingRoom', roomId, since: now.toISOString() },
          ...(expected === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'roomId = :expected', ExpressionAttributeValues: { ':expected': expected } }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Live rooms of the bucket with a free slot, oldest first: players who left made room there. */
  async roomsWithFreeSlots(bucket: string, limit = 10): Promise<string[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :bucket',
        FilterExpression: '#state = :ready AND players < maxPlayers',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':bucket': `OPEN#${bucket}`, ':ready': 'ready' },
        Limit: limit * 5,
      }),
    );
    return Items.slice(0, limit).map((item) => String(item.roomId));
  }

  /**
   * Live rooms of the bucket (spawning or ready) with at least `slots` free, as the index shows
   * them (eventually consistent: the claim's condition decides). The index projects `players`
   * and `maxPlayers`, so a party's matchmaking reads no room to know whether it fits.
   */
  async roomsWithRoomFor(bucket: string, slots: number, limit = 10): Promise<OpenRoom[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :bucket',
        FilterExpression: '#state IN (:spawning, :ready) AND players < maxPlayers',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':bucket': `OPEN#${bucket}`, ':spawning': 'spawning', ':ready': 'ready' },
        Limit: limit * 5,
      }),
    );
    return Items.map((item) => ({
      roomId: String(item.roomId),
      players: Number(item.players),
      maxPlayers: Number(item.maxPlayers),
    }))
      .filter((room) => room.maxPlayers - room.players >= slots)
      .slice(0, limit);
  }
}
