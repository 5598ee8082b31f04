import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  asDependencyUnavailable,
  classifyDependencyError,
  conditionFailedAt,
  isConditionFailure,
  retryOnContention,
} from '../infra/dependency-errors';
import { keys, type ItemKey } from '../infra/keys';
import { isItemTooLarge, SessionDocumentFullError } from './session-errors';
import { compileWrite, type Change, type Condition, type Item } from './room-expression';
import type { ItemWrite, ItemWriteResult, RoomItems, RoomStore, TransactOutcome } from './room-store';
import { Rooms, type RoomsOptions } from './rooms';
import { DynamoLargeMemberItems } from './large-member-store';

/** Attempts at creating a room while DynamoDB throttles. */
const createAttempts = 5;

/** Room items on the single table: each write one conditional request. */
export class DynamoRoomItems implements RoomItems {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async get(roomId: string): Promise<Item | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    return Item;
  }

  async putNew(item: Item): Promise<Item | undefined> {
    const put = new PutCommand({
      TableName: this.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    try {
      await retryOnContention(() => this.db.send(put), { maxAttempts: createAttempts, sleep: this.sleep });
      return undefined;
    } catch (error) {
      if (isConditionFailure(error)) return oldItemOf(error) ?? {};
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(String(item.roomId), { cause: error });
      throw asDependencyUnavailable(error) ?? error;
    }
  }

  async update(
    roomId: string,
    condition: Condition,
    change: Change,
    answer: 'all' | 'updated' = 'all',
  ): Promise<ItemWriteResult> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          ...compileWrite(condition, change),
          ReturnValues: answer === 'updated' ? 'UPDATED_NEW' : 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { applied: true, item: Attributes ?? {} };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const old = oldItemOf(error);
        return { applied: false, ...(old ? { item: old } : {}) };
      }
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(roomId, { cause: error });
      throw error;
    }
  }

  async transact(
    roomId: string,
    condition: Condition,
    change: Change,
    alongside: readonly ItemWrite[],
  ): Promise<TransactOutcome> {
    const update = (Key: ItemKey, condition: Condition, change: Change) => {
      const { UpdateExpression, ...compiled } = compileWrite(condition, change);
      if (UpdateExpression === undefined) throw new Error(`A transaction's update of ${Key.pk} changes nothing.`);
      return { Update: { TableName: this.tableName, Key, UpdateExpression, ...compiled } };
    };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            update(keys.room(roomId), condition, change),
            ...alongside.map((other) => update(other.key, other.condition, other.change)),
          ],
        }),
      );
      return { state: 'Written' };
    } catch (error) {
      const refused = refusedAt(error, alongside.length + 1);
      if (refused !== undefined) return { state: 'Refused', at: refused === 0 ? 'room' : refused - 1 };
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(roomId, { cause: error });
      const kind = classifyDependencyError(error)?.kind;
      if (kind === 'contention' || kind === 'throttled' || kind === 'timeout')
        return { state: 'Contention', cause: error };
      throw error;
    }
  }

  async delete(roomId: string, condition: Condition): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({ TableName: this.tableName, Key: keys.room(roomId), ...compileWrite(condition) }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** The index of the first item whose condition cancelled a transaction of `count` items, if one did. */
function refusedAt(error: unknown, count: number): number | undefined {
  for (let index = 0; index < count; index++) if (conditionFailedAt(error, index)) return index;
  return undefined;
}

/** The item a refused condition returned (`ALL_OLD`), if any. */
function oldItemOf(error: unknown): Item | undefined {
  const item = (error as { Item?: Record<string, AttributeValue> }).Item;
  return item ? unmarshall(item) : undefined;
}

/** The room store on the table. */
export function dynamoRoomStore(
  db: DynamoDBDocumentClient,
  tableName: string,
  options: RoomsOptions & { sleep?: (ms: number) => Promise<void> } = {},
): RoomStore {
  return new Rooms(new DynamoRoomItems(db, tableName, options.sleep), {
    largeMembers: new DynamoLargeMemberItems(db, tableName),
    ...options,
  });
}
