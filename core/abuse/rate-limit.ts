/**
 * Per-account rate limits as a strict sliding window: pure rules of (log, policy, now). The
 * store keeps the log and writes it with one conditional update; these functions decide.
 *
 * The log of an account and action is a ring of the last `limit` admission times plus a
 * sequence number `n` (admissions so far). Admission number `n` goes into slot `n mod limit`,
 * which holds admission `n − limit`. A request at `now` is admitted when that slot is empty
 * or at least one window old:
 *
 * ```
 *   slot n mod L:  admitted at t₀                       now
 *   |--------------- windowS ----------------|···········|
 *   t₀                                  t₀ + windowS     admit iff t₀ ≤ now − windowS
 *                                             |<-------->| (when refused) Retry-After = ceil(t₀ + windowS − now) s, ≥ 1
 * ```
 *
 * Why no span of `windowS` (half-open, [t, t + windowS)) ever holds more than `limit`
 * admissions, even when requests race or clocks disagree: the admissions whose numbers share a
 * residue mod `limit` are written to the same slot, each at least `windowS` after the one it
 * replaced, so each residue class has at most one admission per span, and there are `limit`
 * classes. A fixed window admits up to 2 × limit across its boundary, and a token bucket or
 * GCRA admits burst + refill within a span; this does neither.
 *
 * A changed limit keeps the log and only renumbers the ring: each slot still takes at most one
 * admission per span, so a span after the change holds at most the new limit, and the span of
 * the change at most the larger of the two.
 */

/** What is being limited; part of the log's key. */
export type RateLimitedAction = 'join' | 'create' | 'command' | 'messagePoll' | 'invite';

export interface RateLimitPolicy {
  readonly action: RateLimitedAction;
  /** Admissions allowed in any span of `windowS` (≥ 1): the ring's size. */
  readonly limit: number;
  readonly windowS: number;
}

/**
 * The ring keeps one timestamp per allowed request, so the item grows with the limit:
 * 10,000 slots stay well below DynamoDB's 400 KB item size (about 12 bytes a slot).
 */
export const maxRateLimit = 10_000;

/** What the store knows of a log when it decides: the sequence number and the slot it gates on. */
export interface RateGate {
  /** Admissions recorded so far; the next one is number `n`. */
  readonly n: number;
  /** When admission `n − limit` was admitted (epoch ms), if it exists: the time in slot `n mod limit`. */
  readonly slotAdmittedAtMs: number | undefined;
}

export type RateDecision =
  | { readonly admit: true; readonly slot: number }
  /** `freeAtMs`: when the gating admission leaves the window; until then the log admits nobody. */
  | { readonly admit: false; readonly retryAfterS: number; readonly freeAtMs: number };

/** Slot of the ring that admission number `n` writes. */
export function ringSlot(n: number, limit: number): number {
  return n % limit;
}

/** The latest admission time that no longer counts at `now`: a slot at or before it is free. */
export function cutoffMs(now: Date, windowS: number): number {
  return now.getTime() - windowS * 1000;
}

/** Admit, or say when the oldest admission of the window leaves it. */
export function decide(gate: RateGate, policy: RateLimitPolicy, now: Date): RateDecision {
  const slot = ringSlot(gate.n, policy.limit);
  if (gate.slotAdmittedAtMs === undefined || gate.slotAdmittedAtMs <= cutoffMs(now, policy.windowS)) {
    return { admit: true, slot };
  }
  return {
    admit: false,
    retryAfterS: retryAfterSeconds(gate.slotAdmittedAtMs, policy, now),
    freeAtMs: gate.slotAdmittedAtMs + policy.windowS * 1000,
  };
}

/**
 * Whole seconds until the admission in the gating slot leaves the window, rounded up and
 * never 0, for the `Retry-After` header. Waiting that long always finds the slot free.
 */
export function retryAfterSeconds(slotAdmittedAtMs: number, policy: RateLimitPolicy, now: Date): number {
  return Math.max(1, Math.ceil((slotAdmittedAtMs + policy.windowS * 1000 - now.getTime()) / 1000));
}

/** Logs are dead once their newest admission has left the window; TTL may collect them after this margin. */
const logTtlMarginS = 60;

/** When DynamoDB TTL may collect a log last written at `now`; correctness never depends on it. */
export function logTtl(now: Date, policy: RateLimitPolicy): number {
  return Math.ceil(now.getTime() / 1000) + policy.windowS + logTtlMarginS;
}

/** A whole log in memory, for in-process fakes and tests of the rule. */
export interface RateLog {
  readonly n: number;
  /** Admission times (epoch ms) by slot. */
  readonly slots: readonly (number | undefined)[];
}

export const emptyRateLog: RateLog = { n: 0, slots: [] };

/** Applies one request to a whole log: the same rule the store applies with its conditional write. */
export function admit(log: RateLog, policy: RateLimitPolicy, now: Date): { decision: RateDecision; log: RateLog } {
  const decision = decide({ n: log.n, slotAdmittedAtMs: log.slots[ringSlot(log.n, policy.limit)] }, policy, now);
  if (!decision.admit) return { decision, log };
  const slots = [...log.slots];
  slots[decision.slot] = now.getTime();
  return { decision, log: { n: log.n + 1, slots } };
}
