import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import type { Member } from './model';

export type ConfirmResult =
  | { readonly state: 'Confirmed'; readonly member: Member }
  /** The same request was applied before: answer as then. */
  | { readonly state: 'AlreadyConfirmed'; readonly member: Member }
  | { readonly state: 'Rejected'; readonly reason: 'unknown-key' | 'expired' | 'used' };

export type LeaveResult = { readonly state: 'Left'; readonly account: string } | { readonly state: 'Rejected' };

interface KeyItem {
  readonly account: string;
  readonly leftBy?: string;
}

/** Members and registration keys of rooms. */
export class MemberStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private async keyItem(roomId: string, keyHash: string): Promise<KeyItem | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.registrationKey(roomId, keyHash), ConsistentRead: true }),
    );
    return Item as KeyItem | undefined;
  }

  /**
   * reserved → active, once, for the holder of the key, before the reservation expires
   * (judged against `now`, the platform's clock). The confirming request id is written in
   * the same conditional update, so a redelivery is recognised and a new request with a
   * used key is refused.
   */
  async confirm(roomId: string, keyHash: string, requestId: string, now: Date): Promise<ConfirmResult> {
    const key = await this.keyItem(roomId, keyHash);
    if (!key) return { state: 'Rejected', reason: 'unknown-key' };
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.member(roomId, key.account),
          UpdateExpression: 'SET #state = :active, confirmedBy = :request, confirmedAt = :now REMOVE expiresAt, #ttl',
          // memberIsReserved AND keyMatches AND reservationNotExpired
          ConditionExpression: '#state = :reserved AND keyHash = :keyHash AND expiresAt > :now',
          ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':active': 'active',
            ':reserved': 'reserved',
            ':request': requestId,
            ':now': now.toISOString(),
            ':keyHash': keyHash,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { state: 'Confirmed', member: toMember(Attributes ?? {}) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item ? toMember(unmarshall(error.Item)) : undefined;
      if (old?.keyHash === keyHash && old.state === 'active' && old.confirmedBy === requestId) {
        return { state: 'AlreadyConfirmed', member: old };
      }
      return { state: 'Rejected', reason: old?.keyHash === keyHash && old.state === 'reserved' ? 'expired' : 'used' };
    }
  }

  /** Frees the key holder's slot at once. A redelivered `left` gets the same answer. */
  async leave(roomId: string, keyHash: string, requestId: string, now: Date): Promise<LeaveResult> {
    const key = await this.keyItem(roomId, keyHash);
    if (!key) return { state: 'Rejected' };
    if (key.leftBy === requestId) return { state: 'Left', account: key.account };
    if (key.leftBy !== undefined) return { state: 'Rejected' };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.member(roomId, key.account),
                ConditionExpression: 'keyHash = :keyHash',
                ExpressionAttributeValues: { ':keyHash': keyHash },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.room(roomId),
                UpdateExpression: 'SET players = players - :one, changeNumber = changeNumber + :one, updatedAt = :now',
                ConditionExpression: 'players > :zero',
                ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':now': now.toISOString() },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.registrationKey(roomId, keyHash),
                UpdateExpression: 'SET leftBy = :request',
                ConditionExpression: 'attribute_not_exists(leftBy)',
                ExpressionAttributeValues: { ':request': requestId },
              },
            },
          ],
        }),
      );
      return { state: 'Left', account: key.account };
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const again = await this.keyItem(roomId, keyHash);
        return again?.leftBy === requestId ? { state: 'Left', account: key.account } : { state: 'Rejected' };
      }
      throw error;
    }
  }
}

function toMember(item: Record<string, unknown>): Member {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...member } = item;
  return member as unknown as Member;
}
