import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import { memberItem, registrationKeyItem, ttlOf } from './items';
import type { Member } from './model';

export type ConfirmResult =
  | { readonly state: 'Confirmed'; readonly member: Member }
  /** The same request was applied before: answer as then. */
  | { readonly state: 'AlreadyConfirmed'; readonly member: Member }
  | { readonly state: 'Rejected'; readonly reason: 'unknown-key' | 'expired' | 'used' };

/** What became of an abandoned `joined`: undone, or there was nothing of it to undo. */
export type AbandonResult = 'Reverted' | 'NothingToUndo';

export type LeaveResult = { readonly state: 'Left'; readonly account: string } | { readonly state: 'Rejected' };

/** A slot claim: Agones-style outcomes, contention is a result, not an exception. */
export type ClaimResult =
  | { readonly state: 'Claimed' }
  | { readonly state: 'Full' }
  | { readonly state: 'NotJoinable' }
  /** Ready, but its server has not been heard from since the claim's heartbeat cutoff. */
  | { readonly state: 'Silent' }
  | { readonly state: 'AlreadyMember'; readonly member: Member }
  | { readonly state: 'Contention' };

interface KeyItem {
  readonly account: string;
  readonly leftBy?: string;
}

/** Whether a reservation still holds its slot at `now`. Active members always do. */
export function holdsSlot(member: Member, now: Date): boolean {
  return member.state === 'active' || (member.expiresAt !== undefined && Date.parse(member.expiresAt) > now.getTime());
}

/** Why a transaction was cancelled: a failed condition is an answer, a conflict is contention. */
function cancellation(error: TransactionCanceledException): { conflict: boolean; failedIndexes: number[] } {
  const reasons = error.CancellationReasons ?? [];
  return {
    conflict: reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError'),
    failedIndexes: reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : [])),
  };
}

/** Members and registration keys of rooms. */
export class MemberStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The room side of freeing a slot, for a transaction: one player fewer, never below zero. */
  private releaseSlot(roomId: string, now: Date) {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.room(roomId),
        UpdateExpression: 'SET players = players - :one, changeNumber = changeNumber + :one, updatedAt = :now',
        ConditionExpression: 'players > :zero',
        ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':now': now.toISOString() },
      },
    };
  }

  private async keyItem(roomId: string, keyHash: string): Promise<KeyItem | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.registrationKey(roomId, keyHash), ConsistentRead: true }),
    );
    return Item as KeyItem | undefined;
  }

  async find(roomId: string, account: string): Promise<Member | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.member(roomId, account), ConsistentRead: true }),
    );
    return Item ? toMember(Item) : undefined;
  }

  async list(roomId: string): Promise<Member[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :member)',
        ExpressionAttributeValues: { ':pk': keys.room(roomId).pk, ':member': 'MEMBER#' },
        ConsistentRead: true,
      }),
    );
    return Items.map(toMember);
  }

  /**
   * Claims one slot for a new member, all or nothing:
   *
   *   room:   players = players + 1   IF roomIsLive AND serverHeardFrom AND roomHasFreeSlot
   *   member: put                     IF accountHoldsNoSlotHere
   *   key:    put                     IF keyIsNew
   *
   * When N players race for K free slots, exactly K transactions succeed; the room's count
   * never exceeds maxPlayers, not for a moment. Expired reservations still count until
   * `reclaimExpired` removes them (the caller does that when the room looks full).
   * `heartbeatSince`: a ready room must have been heard from at or after this instant (ISO).
   */
  async claim(member: Member, liveness: { heartbeatSince?: string } = {}): Promise<ClaimResult> {
    const now = member.createdAt;
    const since = liveness.heartbeatSince;
    // serverHeardFrom: spawning rooms have no server to hear from yet; a ready room without a
    // recorded heartbeat is no evidence either way.
    const serverHeardFrom =
      since === undefined
        ? ''
        : ' AND (#state = :spawning OR attribute_not_exists(lastHeartbeatAt) OR lastHeartbeatAt >= :since)';
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.room(member.roomId),
                UpdateExpression: 'SET players = players + :one, changeNumber = changeNumber + :one, updatedAt = :now',
                // roomIsLive AND serverHeardFrom AND roomHasFreeSlot
                ConditionExpression: `#state IN (:spawning, :ready)${serverHeardFrom} AND players < maxPlayers`,
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: {
                  ':one': 1,
                  ':now': now,
                  ':spawning': 'spawning',
                  ':ready': 'ready',
                  ...(since === undefined ? {} : { ':since': since }),
                },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: memberItem(member),
                // accountHoldsNoSlotHere
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: registrationKeyItem(member),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { state: 'Claimed' };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const { conflict, failedIndexes } = cancellation(error);
      const reasons = error.CancellationReasons ?? [];
      if (failedIndexes.includes(1)) {
        const old = reasons[1]?.Item;
        if (old) return { state: 'AlreadyMember', member: toMember(unmarshall(old as never)) };
      }
      if (failedIndexes.includes(0)) {
        const room = reasons[0]?.Item ? unmarshall(reasons[0].Item as never) : undefined;
        if (!room || (room.state !== 'spawning' && room.state !== 'ready')) return { state: 'NotJoinable' };
        if (
          since !== undefined &&
          room.state === 'ready' &&
          typeof room.lastHeartbeatAt === 'string' &&
          room.lastHeartbeatAt < since
        ) {
          return { state: 'Silent' };
        }
        return { state: 'Full' };
      }
      if (conflict || failedIndexes.length === 0) return { state: 'Contention' };
      return { state: 'Contention' };
    }
  }

  /**
   * Gives a member who joins again the same slot with a fresh key (the old key stops
   * working): no second slot, count unchanged. Conditional on the slot still being held.
   */
  async reissueKey(member: Member, newKeyHash: string, now: Date): Promise<'Reissued' | 'Gone'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.member(member.roomId, member.account),
                UpdateExpression: 'SET keyHash = :new REMOVE keyUsedBy',
                // sameSlotStillHeld
                ConditionExpression: 'keyHash = :old AND (#state = :active OR expiresAt > :now)',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: {
                  ':new': newKeyHash,
                  ':old': member.keyHash,
                  ':active': 'active',
                  ':now': now.toISOString(),
                },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: registrationKeyItem(member, newKeyHash),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Delete: { TableName: this.tableName, Key: keys.registrationKey(member.roomId, member.keyHash) } },
          ],
        }),
      );
      return 'Reissued';
    } catch (error) {
      if (error instanceof TransactionCanceledException && !cancellation(error).conflict) return 'Gone';
      throw error;
    }
  }

  /**
   * Frees the slots of reservations that expired before `now` (lazy expiry: no timer, no
   * TTL). Each removal is conditional on the reservation being the same, still reserved and
   * expired, so a confirmation racing with it wins or loses cleanly. Returns how many it freed.
   */
  async reclaimExpired(roomId: string, now: Date): Promise<number> {
    const expired = (await this.list(roomId)).filter((m) => !holdsSlot(m, now));
    let freed = 0;
    for (const member of expired) {
      try {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: this.tableName,
                  Key: keys.member(roomId, member.account),
                  // reservationStillExpired
                  ConditionExpression: '#state = :reserved AND keyHash = :keyHash AND expiresAt <= :now',
                  ExpressionAttributeNames: { '#state': 'state' },
                  ExpressionAttributeValues: {
                    ':reserved': 'reserved',
                    ':keyHash': member.keyHash,
                    ':now': now.toISOString(),
                  },
                },
              },
              this.releaseSlot(roomId, now),
              { Delete: { TableName: this.tableName, Key: keys.registrationKey(roomId, member.keyHash) } },
            ],
          }),
        );
        freed += 1;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
      }
    }
    return freed;
  }

  /**
   * reserved → active, once, for the holder of the key, before the reservation expires
   * (judged against `now`, the platform's clock). The confirming request id is written in
   * the same conditional update, and the reservation's expiry is kept as `reservedUntil`, so
   * `abandon` can undo a confirmation the game never saw answered.
   *
   * The same key again, with a new request id, while its member is still active (the game
   * retried after a timeout, or asked twice) gets the first confirmation back: same member,
   * same `confirmedAt`, hence the same token. A key of another room is unknown here (keys
   * are stored per room); a key whose player has left has no member left to match.
   */
  async confirm(roomId: string, keyHash: string, requestId: string, now: Date): Promise<ConfirmResult> {
    const key = await this.keyItem(roomId, keyHash);
    if (!key) return { state: 'Rejected', reason: 'unknown-key' };
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.member(roomId, key.account),
          UpdateExpression:
            'SET #state = :active, keyUsedBy = :request, confirmedBy = :request, confirmedAt = :now, ' +
            'reservedUntil = if_not_exists(expiresAt, :wasActive) REMOVE expiresAt, #ttl',
          // keyMatches AND keyUnused AND (memberIsActive OR reservationNotExpired)
          ConditionExpression:
            'keyHash = :keyHash AND attribute_not_exists(keyUsedBy) AND (#state = :active OR expiresAt > :now)',
          ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':active': 'active',
            ':request': requestId,
            ':now': now.toISOString(),
            ':keyHash': keyHash,
            ':wasActive': null,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { state: 'Confirmed', member: toMember(Attributes ?? {}) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item ? toMember(unmarshall(error.Item)) : undefined;
      if (old?.keyHash === keyHash && old.keyUsedBy === requestId) return { state: 'AlreadyConfirmed', member: old };
      if (old?.keyHash === keyHash && old.keyUsedBy !== undefined && old.state === 'active' && !key.leftBy) {
        return { state: 'AlreadyConfirmed', member: old };
      }
      return {
        state: 'Rejected',
        reason: old?.keyHash === keyHash && old.keyUsedBy === undefined ? 'expired' : 'used',
      };
    }
  }

  /**
   * Undoes the confirmation `requestId` made with this key, because the game never got its
   * answer (the sidecar timed out and sent `abandoned`): the member becomes the reservation
   * it was, with its original expiry, so the game's retry with the key succeeds and without
   * one the slot frees itself when the reservation expires. A member that was already active
   * before (a re-issued key) stays active; only its key becomes usable again. Nothing changes
   * when another request confirmed the key, or the player has left.
   */
  async abandon(roomId: string, keyHash: string, requestId: string): Promise<AbandonResult> {
    const key = await this.keyItem(roomId, keyHash);
    if (!key || key.leftBy !== undefined) return 'NothingToUndo';
    const member = await this.find(roomId, key.account);
    if (member?.keyHash !== keyHash || member.keyUsedBy !== requestId) return 'NothingToUndo';
    const restore = typeof member.reservedUntil === 'string' ? member.reservedUntil : undefined;
    const { ttl } = ttlOf(restore) as { ttl?: number };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.member(roomId, key.account),
          UpdateExpression:
            restore === undefined
              ? 'REMOVE keyUsedBy'
              : 'SET #state = :reserved, expiresAt = :expiresAt, #ttl = :ttl ' +
                'REMOVE keyUsedBy, confirmedBy, confirmedAt, reservedUntil',
          // stillTheAbandonedConfirmation
          ConditionExpression: 'keyHash = :keyHash AND keyUsedBy = :request',
          ...(restore === undefined ? {} : { ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl' } }),
          ExpressionAttributeValues: {
            ':keyHash': keyHash,
            ':request': requestId,
            ...(restore === undefined ? {} : { ':reserved': 'reserved', ':expiresAt': restore, ':ttl': ttl }),
          },
        }),
      );
      return 'Reverted';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 'NothingToUndo';
      throw error;
    }
  }

  /** Frees the key holder's slot at once (the game's `left`). A redelivery gets the same answer. */
  async leave(roomId: string, keyHash: string, requestId: string, now: Date): Promise<LeaveResult> {
    const key = await this.keyItem(roomId, keyHash);
    if (!key) return { state: 'Rejected' };
    if (key.leftBy === requestId) return { state: 'Left', account: key.account };
    if (key.leftBy !== undefined) return { state: 'Rejected' };
    const left = await this.removeMember(roomId, key.account, now, { keyHash, leftBy: requestId });
    if (left) return { state: 'Left', account: key.account };
    const again = await this.keyItem(roomId, keyHash);
    return again?.leftBy === requestId ? { state: 'Left', account: key.account } : { state: 'Rejected' };
  }

  /** The player's own cancel or leave (`DELETE …/members/me`): only ever their own slot. */
  async leaveAsPlayer(roomId: string, account: string, now: Date): Promise<boolean> {
    const member = await this.find(roomId, account);
    if (!member) return false;
    return this.removeMember(roomId, account, now, { keyHash: member.keyHash, leftBy: `player:${account}` });
  }

  private async removeMember(
    roomId: string,
    account: string,
    now: Date,
    key: { keyHash: string; leftBy: string },
  ): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.member(roomId, account),
                ConditionExpression: 'keyHash = :keyHash',
                ExpressionAttributeValues: { ':keyHash': key.keyHash },
              },
            },
            this.releaseSlot(roomId, now),
            {
              Update: {
                TableName: this.tableName,
                Key: keys.registrationKey(roomId, key.keyHash),
                UpdateExpression: 'SET leftBy = :request',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(leftBy)',
                ExpressionAttributeValues: { ':request': key.leftBy },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && !cancellation(error).conflict) return false;
      throw error;
    }
  }
}

function toMember(item: Record<string, unknown>): Member {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...member } = item;
  return member as unknown as Member;
}
