import { admit, emptyRateLog, type RateLimitPolicy, type RateLog } from '../../../core/abuse/rate-limit';
import type { RateCountResult, RateLimits } from '../../../core/abuse/rate-limit-store';

/**
 * `RateLimits` in memory, for unit tests: one log per account, action and limit (a changed
 * limit starts a fresh log, as the store's key does), decided by the same `admit` rule the
 * store's conditional write applies. A refused request records nothing.
 */
export class InMemoryRateLimits implements RateLimits {
  private readonly logs = new Map<string, RateLog>();

  async count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult> {
    const key = JSON.stringify([account, policy.action, policy.limit]);
    const { decision, log } = admit(this.logs.get(key) ?? emptyRateLog, policy, now);
    if (!decision.admit) return { state: 'Exhausted', retryAfterS: decision.retryAfterS, freeAtMs: decision.freeAtMs };
    this.logs.set(key, log);
    return { state: 'Counted', sequence: log.n };
  }
}
