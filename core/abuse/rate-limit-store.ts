import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { classifyDependencyError } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { PlatformCache } from '../infra/platform-cache';
import { gateBanInForce } from './bans';
import { cutoffMs, decide, logTtl, ringSlot, type RateGate, type RateLimitPolicy } from './rate-limit';

/** Outcome of one request against the limiter: expected refusals are results, not exceptions. */
export type RateCountResult =
  /** Admitted as admission number `sequence` (1-based) of this account's log. */
  | { readonly state: 'Counted'; readonly sequence: number }
  /** `freeAtMs`: when the log's oldest admission leaves the window; it admits nobody before. */
  | { readonly state: 'Exhausted'; readonly retryAfterS: number; readonly freeAtMs: number }
  /** Throttled even after the SDK's own jittered retries, or outraced too often: back off. */
  | { readonly state: 'Contention'; readonly retryAfterS: number; readonly cause: unknown }
  /** A ban in force, as mirrored on the gate (core/abuse/ban-store.ts); `expiresAt` absent if permanent. */
  | { readonly state: 'Banned'; readonly expiresAt?: string };

/** Per-account admission gates (core/abuse/rate-limit.ts): what the abuse guard depends on. */
export interface RateLimits {
  /**
   * Admits one `policy.action` request of `account` at `now` if no ban is in force and no span
   * of `policy.windowS` would then hold more than `policy.limit` admissions; a refused request
   * records nothing.
   */
  count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult>;
}

/** Each clause of the log's condition, by name. */
export const rateConditions = {
  /** Nobody was admitted yet (or TTL collected a log whose admissions had all left the window). */
  logIsNew: 'attribute_not_exists(#n)',
  /** No admission happened since this process last saw the log. */
  logIsAtExpectedSequence: '#n = :n',
  /** The admission `limit` places back is absent or has left the window. */
  slotIsFree: '(attribute_not_exists(#slot) OR #slot <= :cutoff)',
  /** The account's ban, mirrored here, is absent or over; a permanent ban has no `until`, so it never is. */
  noBanInForce: '(attribute_not_exists(#ban) OR #ban.#until <= :now)',
} as const;

const newLogNotBanned = `${rateConditions.logIsNew} AND ${rateConditions.noBanInForce}`;
const logIsAtSequenceWithFreeSlotNotBanned = `${rateConditions.logIsAtExpectedSequence} AND ${rateConditions.slotIsFree} AND ${rateConditions.noBanInForce}`;

/** The attributes of a gate item that a ban's placement and lifting write (core/abuse/ban-store.ts). */
export const gateAttributes = { ban: 'ban', until: 'until', ttl: 'ttl', type: 'type' } as const;

export const gateItemType = 'accountGate';

/**
 * Admission gates, one item per account and action: the sliding-window log (core/abuse/rate-limit.ts),
 * `n` and the ring slots `s0 … s<limit−1>` (admission times, epoch ms), and the account's ban
 * as mirrored there by core/abuse/ban-store.ts (`ban`, with its end `until` unless permanent).
 *
 * An admission is ONE conditional UpdateItem: "n is what I last saw AND the slot n mod limit is
 * free AND no ban is in force" → write the slot and n + 1. A failed condition's returned item
 * says which clause refused: a ban in force (`Banned`, nothing spent) or a full log. The
 * expected n is this process's last sight of the log (`PlatformCache` kind `rateLogSequence`),
 * a guess only. When another process admitted
 * meanwhile, the condition fails and `ReturnValuesOnConditionCheckFailure` hands back the
 * current log, so the next attempt needs no read; a log whose gating slot is still in the
 * window is refused with the time that slot leaves it. Parallel requests of one account, in
 * any number of processes, are serialised by the condition: each round admits exactly one, so
 * exactly `limit` get through and refused ones write nothing. SDK exceptions never leave this
 * module except as bugs.
 */
export class RateLimitStore implements RateLimits {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly cache: PlatformCache = new PlatformCache(),
  ) {}

  /** Admits one `policy.action` request of `account` at `now` unless banned or no span of the window would exceed the limit. */
  async count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult> {
    const key = keys.accountGate(account, policy.action);
    const cacheKey = `${key.pk}#${key.sk}`;
    let gate: RateGate = {
      n: (await this.cache.peek<number>('rateLogSequence', cacheKey)) ?? 0,
      slotAdmittedAtMs: undefined,
    };
    // Each round admits somebody, so a request that keeps losing is behind at most `limit` others.
    const maxAttempts = Math.min(policy.limit, 100) + 2;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const decision = decide(gate, policy, now);
      if (!decision.admit)
        return { state: 'Exhausted', retryAfterS: decision.retryAfterS, freeAtMs: decision.freeAtMs };
      const written = await this.tryAdmit(key, gate.n, policy, now).catch((error: unknown) => error);
      if (written === 'Admitted') {
        this.cache.remember('rateLogSequence', cacheKey, gate.n + 1);
        return { state: 'Counted', sequence: gate.n + 1 };
      }
      if (written instanceof ConditionalCheckFailedException) {
        const item = written.Item ? unmarshall(written.Item) : undefined;
        gate = gateOf(item, policy);
        this.cache.remember('rateLogSequence', cacheKey, gate.n);
        const ban = gateBanInForce(item?.[gateAttributes.ban], now);
        if (ban) return { state: 'Banned', ...ban };
        continue;
      }
      const kind = classifyDependencyError(written)?.kind;
      if (kind === 'throttled' || kind === 'contention') return { state: 'Contention', retryAfterS: 1, cause: written };
      throw written;
    }
    return { state: 'Contention', retryAfterS: 1, cause: new Error('outraced on every attempt') };
  }

  private async tryAdmit(
    key: { pk: string; sk: string },
    n: number,
    policy: RateLimitPolicy,
    now: Date,
  ): Promise<'Admitted'> {
    const isNew = n === 0;
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        // An ended ban stays: a request judged at an earlier `now` (another clock) still meets it.
        // The log's TTL is its own again, as the ban is over.
        UpdateExpression: 'SET #slot = :now, #n = :next, #type = :type, #ttl = :ttl',
        ConditionExpression: isNew ? newLogNotBanned : logIsAtSequenceWithFreeSlotNotBanned,
        ExpressionAttributeNames: {
          '#n': 'n',
          '#slot': slotAttribute(ringSlot(n, policy.limit)),
          '#type': gateAttributes.type,
          '#ttl': gateAttributes.ttl,
          '#ban': gateAttributes.ban,
          '#until': gateAttributes.until,
        },
        ExpressionAttributeValues: {
          ':now': now.getTime(),
          ':next': n + 1,
          ':type': gateItemType,
          ':ttl': logTtl(now, policy),
          ...(isNew ? {} : { ':n': n, ':cutoff': cutoffMs(now, policy.windowS) }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'Admitted';
  }
}

function slotAttribute(slot: number): string {
  return `s${slot}`;
}

/** The gate a stored log (as the failed condition returned it) puts before the next admission. */
function gateOf(item: Record<string, unknown> | undefined, policy: RateLimitPolicy): RateGate {
  const n = typeof item?.n === 'number' ? item.n : 0;
  const slot = item?.[slotAttribute(ringSlot(n, policy.limit))];
  return { n, slotAdmittedAtMs: typeof slot === 'number' ? slot : undefined };
}
