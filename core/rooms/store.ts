import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import type { Room } from './model';
import { RoomAlreadyExistsError, RoomNotFoundError } from './errors';

const roomItemType = 'room';

/** Room persistence. Storage failures leave this module only as room errors. */
export class RoomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(room: Room): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.room(room.roomId), type: roomItemType, ...room },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new RoomAlreadyExistsError(room.roomId);
      throw error;
    }
  }

  /** Strongly consistent: a room that was just created or joined reads back as written. */
  async get(roomId: string): Promise<Room> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    if (!Item) throw new RoomNotFoundError(roomId);
    return fromItem(Item);
  }
}

function fromItem(item: Record<string, unknown>): Room {
  const { pk: _pk, sk: _sk, type: _type, ...room } = item;
  return room as unknown as Room;
}
