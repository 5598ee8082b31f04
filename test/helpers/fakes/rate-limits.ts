import { gateBanInForce, type GateBan } from '../../../core/abuse/bans';
import { admit, emptyRateLog, type RateLimitPolicy, type RateLog } from '../../../core/abuse/rate-limit';
import type { RateCountResult, RateLimits } from '../../../core/abuse/rate-limit-store';

interface Gate {
  readonly log: RateLog;
  readonly ban?: GateBan;
}

/**
 * `RateLimits` in memory, for unit tests: one gate per account and action (a changed limit
 * keeps the log and renumbers its ring, as the store's key does), holding the log and the ban
 * `InMemoryBans` mirrors onto it, decided by the same `admit` rule and ban judgement the
 * store's conditional write applies. A refused request records nothing.
 */
export class InMemoryRateLimits implements RateLimits {
  private readonly gates = new Map<string, Gate>();

  async count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult> {
    const key = gateKey(account, policy.action);
    const gate = this.gates.get(key) ?? { log: emptyRateLog };
    const ban = gateBanInForce(gate.ban, now);
    if (ban) return { state: 'Banned', ...ban };
    const { decision, log } = admit(gate.log, policy, now);
    if (!decision.admit) return { state: 'Exhausted', retryAfterS: decision.retryAfterS, freeAtMs: decision.freeAtMs };
    this.gates.set(key, { log });
    return { state: 'Counted', sequence: log.n };
  }

  /** What `InMemoryBans` writes onto a gate with the ban item: the ban, or `undefined` to lift it. */
  mirrorBan(account: string, action: string, ban: GateBan | undefined): void {
    const key = gateKey(account, action);
    const { log } = this.gates.get(key) ?? { log: emptyRateLog };
    this.gates.set(key, ban ? { log, ban } : { log });
  }
}

const gateKey = (account: string, action: string) => JSON.stringify([account, action]);
