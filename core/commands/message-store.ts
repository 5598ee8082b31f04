import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import { commandRetentionS, messageLogSize, type RoomMessage } from './model';

/** A room's log of game → owner messages: what the use cases depend on. */
export interface RoomMessages {
  /**
   * Appends one message as the next seq and drops the one `messageLogSize` places back.
   * Appending the same `messageId` again (a redelivery) stores it under the seq it got the
   * first time. Returns that seq.
   */
  append(roomId: string, messageId: string, data: Record<string, unknown>, now: Date): Promise<number>;
  /** The kept messages with a seq above `after`, oldest first, at most `messageLogSize`. */
  after(roomId: string, after: number): Promise<RoomMessage[]>;
}

/**
 * The log as items beside the room's: a counter item (`n` = last seq, `last` = the message id
 * that took it) and one item per message, keyed by seq. One room's messages come from one FIFO
 * message group, applied one at a time in order: a redelivered message is always the last one
 * the group applied, so remembering the last message id is enough to recognise it.
 *
 *   UpdateItem counter: n = n + 1, last = id   IF last <> id   → seq (or the old n on a repeat)
 *   PutItem  MESSAGE#seq                                       (the same item again on a repeat)
 *   DeleteItem MESSAGE#(seq − 100)                             (the log stays bounded)
 */
export class MessageStore implements RoomMessages {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async append(roomId: string, messageId: string, data: Record<string, unknown>, now: Date): Promise<number> {
    const ttl = Math.ceil(now.getTime() / 1000) + commandRetentionS;
    const seq = await this.nextSeq(roomId, messageId, ttl);
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.message(roomId, seq), type: 'message', seq, data, at: now.toISOString(), ttl },
      }),
    );
    if (seq > messageLogSize) {
      await this.db.send(
        new DeleteCommand({ TableName: this.tableName, Key: keys.message(roomId, seq - messageLogSize) }),
      );
    }
    return seq;
  }

  async after(roomId: string, after: number): Promise<RoomMessage[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.message(roomId, 0).pk,
          ':from': keys.message(roomId, after + 1).sk,
          ':to': keys.message(roomId, Number.MAX_SAFE_INTEGER).sk,
        },
        ConsistentRead: true,
        Limit: messageLogSize,
      }),
    );
    return Items.map((item) => ({
      seq: item.seq as number,
      data: item.data as Record<string, unknown>,
      at: item.at as string,
    }));
  }

  private async nextSeq(roomId: string, messageId: string, ttl: number): Promise<number> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.messageCounter(roomId),
          UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #last = :id, #ttl = :ttl',
          // notTheLastMessageAgain
          ConditionExpression: 'attribute_not_exists(#last) OR #last <> :id',
          ExpressionAttributeNames: { '#n': 'n', '#last': 'last', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':id': messageId, ':ttl': ttl },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return Attributes?.n as number;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
      // The same message again: it keeps the seq it took.
      return unmarshall(error.Item).n as number;
    }
  }
}
