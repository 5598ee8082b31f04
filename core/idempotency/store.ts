import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys, type ItemKey } from '../infra/keys';
import { open, seal } from './cipher';
import { IdempotencyRecordUnreadableError } from './errors';
import { idempotencyWindowMs, inProgressLeaseMs, type StoredResponse } from './record';

/** Who asks, with which key, for what. */
export interface IdempotentRequest {
  readonly account: string;
  /** `hashIdempotencyKey(header)`. */
  readonly keyHash: string;
  /** `requestFingerprint(…)`. */
  readonly fingerprint: string;
}

/** A claim this request holds: only its holder completes or releases it. */
export interface IdempotencyClaim {
  readonly key: ItemKey;
  readonly claimId: string;
  readonly fingerprint: string;
}

export type ClaimResult =
  | { readonly state: 'Claimed'; readonly claim: IdempotencyClaim }
  | { readonly state: 'Completed'; readonly response: StoredResponse }
  | { readonly state: 'InProgress'; readonly leaseUntilMs: number }
  | { readonly state: 'Mismatch' };

/** Each clause of the claim's condition, by name: the key is free when one holds. */
export const idempotencyConditions = {
  recordIsAbsent: 'attribute_not_exists(pk)',
  recordHasExpired: 'expiresAtMs <= :now',
  claimWasAbandoned: '(#status = :inProgress AND leaseUntilMs <= :now)',
  claimIsOurs: 'claimId = :claimId',
} as const;

const keyIsFree = [
  idempotencyConditions.recordIsAbsent,
  idempotencyConditions.recordHasExpired,
  idempotencyConditions.claimWasAbandoned,
].join(' OR ');

interface RecordItem {
  readonly status: 'inProgress' | 'completed';
  readonly fingerprint: string;
  readonly claimId: string;
  readonly expiresAtMs: number;
  readonly leaseUntilMs: number;
  /** `seal(JSON.stringify(StoredResponse))`: present once completed. */
  readonly response?: string;
}

/** Claim / complete / release of `Idempotency-Key` records: what the HTTP wrapper depends on. */
export interface IdempotencyRecords {
  /**
   * Claims the key for this request unless a live record holds it (one younger than the
   * 10-minute window that is completed, or in progress within its lease); otherwise says what
   * that record answers: its stored response, "in progress", or "another request used this key".
   */
  claim(request: IdempotentRequest, now: Date): Promise<ClaimResult>;
  /** Keeps `response` as the answer to every repeat; a no-op once the claim is no longer ours. */
  complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void>;
  /** Frees the key for a retry; a no-op once the claim is no longer ours. */
  release(claim: IdempotencyClaim): Promise<void>;
}

/**
 * Idempotency records on the single table (`keys.idempotencyRecord`), one per account and key.
 *
 * - `claim`: ONE conditional put, "no live record for this key" (absent, older than 10 minutes,
 *   or an abandoned claim past its lease). When it fails, the record that blocked it comes
 *   back (ALL_OLD) and says what to answer: the stored response, "in progress", or "another
 *   request used this key". Expiry is judged against `now`; TTL only collects garbage.
 * - `complete`: stores the response, encrypted (it may hold a registration key), only by the
 *   claim's holder.
 * - `release`: deletes the holder's claim when the answer must not be kept (5xx, 429), so a
 *   retry runs again.
 */
export class IdempotencyStore implements IdempotencyRecords {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The AES-256 key for stored answers (`deriveIdempotencyKey`), loaded on first use. */
    private readonly encryptionKey: () => Promise<Buffer>,
  ) {}

  async claim(request: IdempotentRequest, now: Date): Promise<ClaimResult> {
    const key = keys.idempotencyRecord(request.account, request.keyHash);
    const claimId = randomUUID();
    const nowMs = now.getTime();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...key,
            type: 'idempotencyRecord',
            status: 'inProgress',
            fingerprint: request.fingerprint,
            claimId,
            expiresAtMs: nowMs + idempotencyWindowMs,
            leaseUntilMs: nowMs + inProgressLeaseMs,
            ttl: Math.ceil((nowMs + idempotencyWindowMs) / 1000) + 60,
          },
          ConditionExpression: keyIsFree,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': nowMs, ':inProgress': 'inProgress' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { state: 'Claimed', claim: { key, claimId, fingerprint: request.fingerprint } };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The condition failed, so a live record exists; ALL_OLD always returns it.
      const record = unmarshall(error.Item ?? {}) as RecordItem;
      if (record.fingerprint !== request.fingerprint) return { state: 'Mismatch' };
      if (record.status === 'inProgress' || record.response === undefined) {
        return { state: 'InProgress', leaseUntilMs: record.leaseUntilMs };
      }
      return { state: 'Completed', response: await this.openResponse(key, record) };
    }
  }

  /** Keeps `response` as the answer to every repeat of the claimed request for the rest of its 10 minutes. */
  async complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    const sealed = seal(
      await this.encryptionKey(),
      JSON.stringify(response),
      associatedData(claim.key, claim.fingerprint),
    );
    await this.whileOurs(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: claim.key,
          UpdateExpression: 'SET #status = :completed, #response = :response',
          ConditionExpression: idempotencyConditions.claimIsOurs,
          ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
          ExpressionAttributeValues: { ':completed': 'completed', ':response': sealed, ':claimId': claim.claimId },
        }),
      ),
    );
  }

  /** Frees the key for a retry: the answer was not final. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.whileOurs(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: claim.key,
          ConditionExpression: idempotencyConditions.claimIsOurs,
          ExpressionAttributeValues: { ':claimId': claim.claimId },
        }),
      ),
    );
  }

  /** A claim taken over after its lease is the new holder's: losing it is not an error. */
  private async whileOurs(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async openResponse(key: ItemKey, record: RecordItem): Promise<StoredResponse> {
    const encryptionKey = await this.encryptionKey();
    try {
      const text = open(encryptionKey, record.response ?? '', associatedData(key, record.fingerprint));
      return JSON.parse(text) as StoredResponse;
    } catch (error) {
      throw new IdempotencyRecordUnreadableError(error);
    }
  }
}

function associatedData(key: ItemKey, fingerprint: string): string {
  return `${key.pk}\n${key.sk}\n${fingerprint}`;
}
