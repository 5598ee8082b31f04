import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { classifyDependencyError } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { compileWrite, type Item } from './room-expression';
import type { LargeMemberItems, MemberOp, MemberTransaction, TransactionOutcome } from './large-members';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A large session's member items on the single table (core/rooms/large-members.ts). */
export class DynamoLargeMemberItems implements LargeMemberItems {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Counts each transaction's capacity (the bench and the tests read it); absent: not asked for. */
    private readonly onCapacity?: (units: number) => void,
  ) {}

  async transact(roomId: string, tx: MemberTransaction): Promise<TransactionOutcome> {
    const roomPart = this.roomPart(roomId, tx.room);
    const items = [...(roomPart ? [roomPart] : []), ...tx.members.map((op) => this.memberPart(roomId, op))];
    try {
      const answer = await this.db.send(
        new TransactWriteCommand({
          TransactItems: items,
          ...(this.onCapacity ? { ReturnConsumedCapacity: 'TOTAL' } : {}),
        }),
      );
      this.onCapacity?.((answer.ConsumedCapacity ?? []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0));
      return { applied: true };
    } catch (error) {
      return outcomeOf(error, roomPart !== undefined, tx.members);
    }
  }

  private roomPart(roomId: string, room: MemberTransaction['room']): TransactItem | undefined {
    const common = { TableName: this.tableName, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    switch (room.kind) {
      case 'none':
        return undefined;
      case 'put':
        return { Put: { ...common, Item: room.item, ConditionExpression: 'attribute_not_exists(pk)' } };
      case 'check': {
        const { ConditionExpression, ...rest } = compileWrite(room.condition);
        return { ConditionCheck: { ...common, Key: keys.room(roomId), ConditionExpression, ...rest } };
      }
      case 'update': {
        const { UpdateExpression, ...rest } = compileWrite(room.condition, room.change);
        return { Update: { ...common, Key: keys.room(roomId), UpdateExpression: UpdateExpression!, ...rest } };
      }
    }
  }

  private memberPart(roomId: string, op: MemberOp): TransactItem {
    const common = { TableName: this.tableName, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    const Key = keys.largeMember(roomId, op.account);
    switch (op.kind) {
      case 'put':
        return { Put: { ...common, Item: op.item, ...compileWrite(op.condition) } };
      case 'delete':
        return { Delete: { ...common, Key, ...compileWrite(op.condition) } };
      case 'update': {
        const { UpdateExpression, ...rest } = compileWrite(op.condition, op.change);
        return { Update: { ...common, Key, UpdateExpression: UpdateExpression!, ...rest } };
      }
    }
  }

  async get(roomId: string, account: string): Promise<Item | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.largeMember(roomId, account), ConsistentRead: true }),
    );
    return Item;
  }

  async page(roomId: string, limit: number, after?: string): Promise<{ items: Item[]; last?: string }> {
    const { Items, LastEvaluatedKey } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.room(roomId).pk, ':prefix': keys.largeMemberPrefix },
        Limit: limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: keys.largeMember(roomId, after) }),
      }),
    );
    const items = Items ?? [];
    const last = LastEvaluatedKey ? String(items.at(-1)?.account) : undefined;
    return { items, ...(last === undefined ? {} : { last }) };
  }

  /** A Query of the room's member items filtered on `x`: read on the full path only, written never. */
  expiredBefore(roomId: string, now: number, limit: number): Promise<Item[]> {
    return this.filtered(roomId, '#x < :now', { '#x': 'x' }, { ':now': now }, limit);
  }

  ofKey(roomId: string, keyHash: string): Promise<Item | undefined> {
    return this.filtered(roomId, '#m.#k = :k', { '#m': 'm', '#k': 'k' }, { ':k': keyHash }, 1).then(
      (items) => items[0],
    );
  }

  private async filtered(
    roomId: string,
    filter: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
    limit: number,
  ): Promise<Item[]> {
    const found: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const answer = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: filter,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':pk': keys.room(roomId).pk, ':prefix': keys.largeMemberPrefix, ...values },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      found.push(...(answer.Items ?? []));
      start = answer.LastEvaluatedKey;
    } while (start && found.length < limit);
    return found.slice(0, limit);
  }
}

interface CancelledShape {
  readonly name?: string;
  readonly CancellationReasons?: readonly { readonly Code?: string; readonly Item?: Record<string, AttributeValue> }[];
}

/**
 * A cancelled transaction says why, item by item: a failed condition on the room or on a
 * member is an answer about the data; a conflict with another transaction (concurrent
 * transactions on one item conflict on real DynamoDB), or throttling, is contention. A
 * member's failed condition is the answer over the room's: a member holding its slot in a
 * full room fails both, and keeps its slot.
 */
function outcomeOf(error: unknown, hasRoom: boolean, members: readonly MemberOp[]): TransactionOutcome {
  const shape = error as CancelledShape;
  if (shape?.name === 'TransactionCanceledException') {
    const reasons = shape.CancellationReasons ?? [];
    const failed = (r: { readonly Code?: string }) => r.Code === 'ConditionalCheckFailed';
    const memberAt = reasons.findIndex((r, at) => failed(r) && !(hasRoom && at === 0));
    const failedAt = memberAt >= 0 ? memberAt : reasons.findIndex(failed);
    if (failedAt >= 0) {
      const raw = reasons[failedAt]?.Item;
      const item = raw ? unmarshall(raw) : undefined;
      if (hasRoom && failedAt === 0) return { applied: false, failed: 'room', ...(item ? { item } : {}) };
      const op = members[failedAt - (hasRoom ? 1 : 0)]!;
      return { applied: false, failed: 'member', account: op.account, ...(item ? { item } : {}) };
    }
  }
  const kind = classifyDependencyError(error)?.kind;
  if (kind === 'contention' || kind === 'throttled' || kind === 'timeout')
    return { applied: false, failed: 'conflict', cause: error };
  throw error;
}
