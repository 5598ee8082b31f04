import { randomUUID } from 'node:crypto';
import { afterTheRequestMs, timerLater, type Later } from '../infra/later';
import type { PermitLeaseStore } from './permit-lease-store';
import type { RateLimitPolicy } from './rate-limit';

/**
 * Permit leases: most joins and room creations pass the rate limit with NO DynamoDB write, and
 * the limit stays strict across processes. Each action has leases of its own (one item per
 * action and limit, core/abuse/permit-lease-store.ts).
 *
 * An action's allowance of `limit` admissions per account per window is split in two:
 * `leasedPermits(limit)` lease slots, and the per-account sliding-window log
 * (core/abuse/rate-limit.ts) with the remaining `limit − leasedPermits(limit)`. A process that
 * holds lease slot `i` (one conditional write per lease term, for ALL accounts) may admit each
 * account once per window under that slot, counted in its own memory:
 *
 * ```
 *   slot i held by P₁ ……… until u₁                      P₂ may take slot i
 *   P₁ admits (account, slot i) at most once per window  |
 *   ──────────────────────────|-- margin --|------ windowS ------|-- margin --|──►
 *                       u₁ − margin       u₁                     u₁ + windowS + margin
 * ```
 *
 * Why no span of `windowS` ever holds more than `limit` admissions of one account: each lease
 * slot gives at most one admission per span (its holder checks its own memory; a new holder
 * starts only `windowS` + 2 margins after the last use of the old one, which absorbs clock
 * skew below one margin), and there are `leasedPermits(limit)` slots; the log admits at most
 * the rest in any span. A process that holds no slot (another holds them all) uses the log
 * alone; so does an account that spent its leased permits in this process.
 */

/** Lease slots of an action's allowance; the log keeps the rest (at least three quarters). */
export function leasedPermits(limit: number): number {
  return Math.min(4, Math.floor(limit / 4));
}

/** The per-account log's share of the allowance. */
export function logPolicy(policy: RateLimitPolicy): RateLimitPolicy {
  return { ...policy, limit: policy.limit - leasedPermits(policy.limit) };
}

export const leaseTermMs = 30_000;
/** A holder renews (in the background) when less than this is left. */
export const leaseRenewBeforeMs = 15_000;
/** Clocks of two processes may disagree by up to this much without breaking the limit. */
export const leaseClockMarginMs = 1_000;
/** A process that found every slot taken asks again after this long, not on every request. */
export const leaseRetryAfterMs = 5_000;

/** A holder may admit under a slot it holds until `until − margin`. */
export function leaseUsable(untilMs: number, nowMs: number): boolean {
  return nowMs < untilMs - leaseClockMarginMs;
}

/** Another process may take a slot `windowS + margin` after its holder's lease ran out. */
export function leaseReusable(untilMs: number, nowMs: number, windowS: number): boolean {
  return untilMs + windowS * 1000 + leaseClockMarginMs <= nowMs;
}

/** Accounts remembered with a leased admission still in the window; beyond this the log is used. */
const maxTrackedAccounts = 100_000;

/**
 * The lease slots this process holds for one action, and when each account last used each of
 * them. `tryAdmit` is synchronous: it answers from memory.
 */
export class PermitLeases {
  private readonly holder = randomUUID();
  private readonly slots: number;
  /** slot → until (epoch ms), as this process last wrote it. */
  private readonly held = new Map<number, number>();
  /** account → when it last used each slot (epoch ms; index = slot). Insertion order = last use. */
  private readonly used = new Map<string, number[]>();
  private acquiring: Promise<void> | undefined;
  private lastAttemptMs: number | undefined;
  /** A renewal found due waits to begin (core/infra/later.ts `afterTheRequestMs`). */
  private renewalWaiting = false;

  constructor(
    private readonly store: Pick<PermitLeaseStore, 'tryLease'>,
    private readonly policy: RateLimitPolicy,
    private readonly later: Later = timerLater,
  ) {
    this.slots = leasedPermits(policy.limit);
  }

  /** Whether a (re)acquisition is due at `now` (none tried yet, renewal time, or retry time). */
  private due(nowMs: number): boolean {
    if (this.slots === 0) return false;
    if (this.lastAttemptMs === undefined || nowMs < this.lastAttemptMs) return true;
    const soonest = Math.min(...[...this.held.values()].filter((u) => leaseUsable(u, nowMs)));
    if (Number.isFinite(soonest)) return soonest - nowMs < leaseRenewBeforeMs && nowMs - this.lastAttemptMs > 1_000;
    return nowMs - this.lastAttemptMs >= leaseRetryAfterMs;
  }

  /**
   * True if nothing needs waiting for: leases known (held or not), no first acquisition pending.
   * Only the very first acquisition is worth waiting for; a renewal (or a retry) runs in the
   * background, begun after the request that found it due has made its own requests.
   */
  settled(now: Date): boolean {
    if (!this.due(now.getTime())) return true;
    if (this.lastAttemptMs === undefined) {
      this.refresh(now).catch(() => undefined);
      return false;
    }
    this.renewAfterTheRequest(now);
    return true;
  }

  private renewAfterTheRequest(now: Date): void {
    if (this.renewalWaiting) return;
    this.renewalWaiting = true;
    this.later(() => {
      this.renewalWaiting = false;
      // As late as the timer is at least: a lease counted from then is no longer than it may be.
      const begun = new Date(now.getTime() + afterTheRequestMs);
      if (this.due(begun.getTime())) this.refresh(begun).catch(() => undefined);
    }, afterTheRequestMs);
  }

  /**
   * Waits for the first acquisition (or a renewal already running), at most `withinMs` when
   * given: past it the caller goes on without the leases, which keep being acquired. Never throws.
   */
  async ready(now: Date, withinMs?: number): Promise<void> {
    const running = this.due(now.getTime()) ? this.refresh(now) : this.acquiring;
    if (!running) return;
    const done = running.then(
      () => undefined,
      () => undefined,
    );
    if (withinMs === undefined) return done;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
    });
    await Promise.race([done, late]);
    clearTimeout(timer);
  }

  /** Admits one request of `account` at `now` under a held slot it has not used this window. */
  tryAdmit(account: string, now: Date): boolean {
    const nowMs = now.getTime();
    const cutoff = nowMs - this.policy.windowS * 1000;
    const used = this.used.get(account);
    for (const [slot, until] of this.held) {
      if (!leaseUsable(until, nowMs)) continue;
      const last = used?.[slot];
      // A last use in the future (a clock moved backwards) does not free the slot either.
      if (last !== undefined && last > cutoff) continue;
      if (!used && !this.track(nowMs)) return false;
      const record = used ?? new Array<number>(this.slots);
      record[slot] = nowMs;
      this.used.delete(account);
      this.used.set(account, record);
      return true;
    }
    return false;
  }

  /** Room for one more account: forget accounts whose every leased admission left the window. */
  private track(nowMs: number): boolean {
    const cutoff = nowMs - this.policy.windowS * 1000;
    for (const [account, times] of this.used) {
      if (times.some((t) => t !== undefined && t > cutoff)) break;
      this.used.delete(account);
    }
    return this.used.size < maxTrackedAccounts;
  }

  private refresh(now: Date): Promise<void> {
    this.lastAttemptMs = now.getTime();
    this.acquiring ??= this.acquire(now).finally(() => (this.acquiring = undefined));
    return this.acquiring;
  }

  /** One conditional write takes (or renews) every slot that is free, ours, or reusable. */
  private async acquire(now: Date): Promise<void> {
    const nowMs = now.getTime();
    let wanted = Array.from({ length: this.slots }, (_, i) => i);
    for (let attempt = 0; attempt < 3 && wanted.length > 0; attempt++) {
      const until = nowMs + leaseTermMs;
      const outcome = await this.store.tryLease(this.policy, {
        holder: this.holder,
        slots: wanted,
        until,
        reusableBefore: nowMs - this.policy.windowS * 1000 - leaseClockMarginMs,
        ttlS: Math.ceil(until / 1000) + this.policy.windowS + 3600,
      });
      if (outcome.leased) {
        for (const i of wanted) this.held.set(i, until);
        return;
      }
      wanted = wanted.filter((i) => {
        const lease = outcome.current.get(i);
        const free = !lease || lease.h === this.holder || leaseReusable(lease.u, nowMs, this.policy.windowS);
        // Another process holds it: ours no longer (if it ever was).
        if (!free) this.held.delete(i);
        return free;
      });
    }
  }
}
