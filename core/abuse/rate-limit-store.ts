import { randomInt } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import {
  cutoffMs,
  decide,
  emptyRateLog,
  logTtl,
  mergeLogs,
  withAdmission,
  type RateLimitPolicy,
  type RateLog,
  type SlotPicker,
} from './rate-limit';

/** Outcome of one request against the limiter: expected refusals are results, not exceptions. */
export type RateCountResult =
  /** Admitted into slot `slot` of this account's log. */
  | { readonly state: 'Counted'; readonly slot: number }
  | { readonly state: 'Exhausted'; readonly retryAfterS: number }
  /** Throttled even after the SDK's own jittered retries, or outraced too often: back off. */
  | { readonly state: 'Contention'; readonly retryAfterS: number; readonly cause: unknown };

/** Per-account sliding-window logs (core/abuse/rate-limit.ts): what the abuse guard depends on. */
export interface RateLimits {
  /**
   * Admits one `policy.action` request of `account` at `now` if no span of `policy.windowS`
   * would then hold more than `policy.limit` admissions; a refused request records nothing.
   */
  count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult>;
}

/** The one condition of an admission: the chosen slot is absent or its admission has left the window. */
export const slotIsFreeCondition = 'attribute_not_exists(#slot) OR #slot <= :cutoff';

/** Throttling and conflicts are contention: worth a retry later, never a 500. */
const contentionErrors = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
]);

/**
 * Writes one request may try. A lost write returns the whole log, so the next pick knows every
 * slot taken so far; a request only loses again to admissions made in the meantime, and a
 * burst fills the log (→ Exhausted, no write) within a few rounds.
 */
export const maxAttempts = 8;

/** Logs this process remembers, least recently used first out; and the slots they may hold in all. */
const maxCachedLogs = 1_000;
const maxCachedSlots = 200_000;

/** Spreads parallel requests of one account over different slots, so they do not collide. */
const randomFreeSlot: SlotPicker = (free) => free[randomInt(free.length)]!;

/**
 * Sliding-window logs (core/abuse/rate-limit.ts), one item per account, action and limit:
 * the slots `s0 … s<limit−1>` (admission times, epoch ms).
 *
 * An admission is ONE conditional UpdateItem on one slot the process believes free: "slot k is
 * absent or at most now − window" → write now into it. There is no counter every admission must
 * advance, so parallel requests of one account that pick different slots (randomly, from a
 * small in-process cache of the log; any slot when nothing is cached) all succeed in the same
 * round. When the slot was taken meanwhile, the condition fails and
 * `ReturnValuesOnConditionCheckFailure` hands back the whole log, so the next attempt needs no
 * read: it picks another free slot, or refuses with the time the oldest admission leaves the
 * window and writes nothing. A cached log never makes a free slot look taken wrongly (slot
 * values only grow), so a refusal from the cache alone is sound. SDK exceptions never leave
 * this module except as bugs.
 */
export class RateLimitStore implements RateLimits {
  private readonly cache = new Map<string, RateLog>();
  private cachedSlots = 0;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly pick: SlotPicker = randomFreeSlot,
  ) {}

  /** Admits one `policy.action` request of `account` at `now` if no span of the window would exceed the limit. */
  async count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult> {
    const key = keys.rateLog(account, policy.action, policy.limit);
    const cacheKey = `${key.pk}\u0000${key.sk}`;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      // Read the cache on every attempt: parallel requests of this process teach each other.
      const decision = decide(this.cache.get(cacheKey) ?? emptyRateLog, policy, now, this.pick);
      if (!decision.admit) return { state: 'Exhausted', retryAfterS: decision.retryAfterS };
      const written = await this.tryAdmit(key, decision.slot, policy, now).catch((error: unknown) => error);
      if (written === 'Admitted') {
        this.learn(cacheKey, withAdmission(emptyRateLog, decision.slot, now));
        return { state: 'Counted', slot: decision.slot };
      }
      if (written instanceof ConditionalCheckFailedException) {
        this.learn(cacheKey, logOf(written.Item ? unmarshall(written.Item) : undefined, policy));
        continue;
      }
      if (written instanceof Error && contentionErrors.has(written.name)) {
        return { state: 'Contention', retryAfterS: 1, cause: written };
      }
      throw written;
    }
    return { state: 'Contention', retryAfterS: 1, cause: new Error('outraced on every attempt') };
  }

  private async tryAdmit(
    key: { pk: string; sk: string },
    slot: number,
    policy: RateLimitPolicy,
    now: Date,
  ): Promise<'Admitted'> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET #slot = :now, #type = :type, #ttl = :ttl',
        ConditionExpression: slotIsFreeCondition,
        ExpressionAttributeNames: { '#slot': slotAttribute(slot), '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':now': now.getTime(),
          ':cutoff': cutoffMs(now, policy.windowS),
          ':type': 'rateLog',
          ':ttl': logTtl(now, policy),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'Admitted';
  }

  /** Merges what a write or a failed condition showed into the cached log (most recently used last). */
  private learn(cacheKey: string, seen: RateLog): void {
    const known = this.cache.get(cacheKey);
    const merged = known ? mergeLogs(known, seen) : seen;
    if (known) {
      this.cache.delete(cacheKey);
      this.cachedSlots -= known.slots.length;
    }
    this.cache.set(cacheKey, merged);
    this.cachedSlots += merged.slots.length;
    // Maps iterate in insertion order: the first key is the one used longest ago.
    while (this.cache.size > maxCachedLogs || (this.cachedSlots > maxCachedSlots && this.cache.size > 1)) {
      const [oldestKey, oldest] = this.cache.entries().next().value as [string, RateLog];
      this.cache.delete(oldestKey);
      this.cachedSlots -= oldest.slots.length;
    }
  }
}

function slotAttribute(slot: number): string {
  return `s${slot}`;
}

/** The slots of a stored log, as a failed condition returned it; other attributes are ignored. */
function logOf(item: Record<string, unknown> | undefined, policy: RateLimitPolicy): RateLog {
  const slots: (number | undefined)[] = [];
  for (let slot = 0; slot < policy.limit; slot++) {
    const value = item?.[slotAttribute(slot)];
    slots.push(typeof value === 'number' ? value : undefined);
  }
  return { slots };
}
