/**
 * Per-account rate limits as a strict sliding window: pure rules of (log, policy, now). The
 * store keeps the log and writes it with one conditional update per attempt; these functions
 * decide.
 *
 * The log of an account and action is `limit` slots, each holding the time of the last
 * admission written to it (or nothing). A request at `now` may take ANY free slot: one that is
 * empty or whose admission is at least one window old. It is refused when no slot is free:
 *
 * ```
 *   slot k:  admitted at t₀                             now
 *   |--------------- windowS ----------------|···········|
 *   t₀                                  t₀ + windowS     slot k is free iff t₀ ≤ now − windowS
 *   all slots taken → Retry-After = ceil(min over slots of (t₀ + windowS − now)) s, ≥ 1
 * ```
 *
 * Why no span of `windowS` (half-open, [t, t + windowS)) ever holds more than `limit`
 * admissions, even when requests race, arrive out of order or clocks disagree: an admission at
 * `now` overwrites its slot only if the slot's previous admission is at or before
 * `now − windowS` (the store checks this in the same atomic conditional write, so the writes to
 * one slot are totally ordered). So the admissions a slot ever held, in the order written, are
 * each at least `windowS` after the one before; two of them can never fall into one half-open
 * span of length `windowS`. Each admission lives in exactly one slot and there are `limit`
 * slots, so any span holds at most `limit` admissions. No slot depends on another, which is what
 * lets parallel requests of one account take different slots at once instead of queueing on a
 * shared counter. A fixed window admits up to 2 × limit across its boundary, and a token bucket
 * or GCRA admits burst + refill within a span; this does neither.
 *
 * For requests in time order the rule is also exact: the slots holding admissions of the last
 * `windowS` are exactly those admissions (a slot is only overwritten once its admission has
 * left), so a request is refused only when the last `windowS` already holds `limit`.
 */

/** What is being limited; part of the log's key. */
export type RateLimitedAction = 'join' | 'create';

export interface RateLimitPolicy {
  readonly action: RateLimitedAction;
  /** Admissions allowed in any span of `windowS` (≥ 1): the number of slots. */
  readonly limit: number;
  readonly windowS: number;
}

/**
 * The log keeps one timestamp per allowed request, so the item grows with the limit:
 * 10,000 slots stay well below DynamoDB's 400 KB item size (about 12 bytes a slot).
 */
export const maxRateLimit = 10_000;

/** A log as far as one process knows it: admission times (epoch ms) by slot, absent = never written. */
export interface RateLog {
  readonly slots: readonly (number | undefined)[];
}

export const emptyRateLog: RateLog = { slots: [] };

export type RateDecision =
  { readonly admit: true; readonly slot: number } | { readonly admit: false; readonly retryAfterS: number };

/** Chooses one of the free slots (never called with none). */
export type SlotPicker = (free: readonly number[]) => number;

/** The deterministic choice, for in-memory fakes and tests: the lowest free slot. */
export const lowestFreeSlot: SlotPicker = (free) => free[0]!;

/** The latest admission time that no longer counts at `now`: a slot at or before it is free. */
export function cutoffMs(now: Date, windowS: number): number {
  return now.getTime() - windowS * 1000;
}

/** Whether a slot holding `admittedAtMs` may take an admission at `now`. */
export function slotIsFree(admittedAtMs: number | undefined, policy: RateLimitPolicy, now: Date): boolean {
  return admittedAtMs === undefined || admittedAtMs <= cutoffMs(now, policy.windowS);
}

/** The slots in [0, limit) an admission at `now` may take, ascending. */
export function freeSlots(log: RateLog, policy: RateLimitPolicy, now: Date): number[] {
  const free: number[] = [];
  for (let slot = 0; slot < policy.limit; slot++) {
    if (slotIsFree(log.slots[slot], policy, now)) free.push(slot);
  }
  return free;
}

/** Admit into a free slot chosen by `pick`, or say when the oldest admission of the window leaves it. */
export function decide(
  log: RateLog,
  policy: RateLimitPolicy,
  now: Date,
  pick: SlotPicker = lowestFreeSlot,
): RateDecision {
  const free = freeSlots(log, policy, now);
  if (free.length > 0) return { admit: true, slot: pick(free) };
  // No slot is free, so every slot in [0, limit) holds an admission.
  let oldest = Infinity;
  for (let slot = 0; slot < policy.limit; slot++) oldest = Math.min(oldest, log.slots[slot]!);
  return { admit: false, retryAfterS: retryAfterSeconds(oldest, policy, now) };
}

/**
 * Whole seconds until the oldest admission of a full log leaves the window, rounded up and
 * never 0, for the `Retry-After` header. Waiting that long always finds its slot free.
 */
export function retryAfterSeconds(oldestAdmittedAtMs: number, policy: RateLimitPolicy, now: Date): number {
  return Math.max(1, Math.ceil((oldestAdmittedAtMs + policy.windowS * 1000 - now.getTime()) / 1000));
}

/**
 * What two views of one log say together. A slot's value only ever grows (each write is at
 * least a window after the one it replaces), so the larger of two readings is the newer one.
 */
export function mergeLogs(a: RateLog, b: RateLog): RateLog {
  const length = Math.max(a.slots.length, b.slots.length);
  const slots: (number | undefined)[] = [];
  for (let slot = 0; slot < length; slot++) {
    const x = a.slots[slot];
    const y = b.slots[slot];
    slots.push(x === undefined ? y : y === undefined ? x : Math.max(x, y));
  }
  return { slots };
}

/** `log` with `slot` holding an admission at `now`. */
export function withAdmission(log: RateLog, slot: number, now: Date): RateLog {
  const slots = [...log.slots];
  slots[slot] = now.getTime();
  return { slots };
}

/** Logs are dead once their newest admission has left the window; TTL may collect them after this margin. */
export const logTtlMarginS = 60;

/** When DynamoDB TTL may collect a log last written at `now`; correctness never depends on it. */
export function logTtl(now: Date, policy: RateLimitPolicy): number {
  return Math.ceil(now.getTime() / 1000) + policy.windowS + logTtlMarginS;
}

/** Applies one request to a whole log: the same rule the store applies with its conditional write. */
export function admit(
  log: RateLog,
  policy: RateLimitPolicy,
  now: Date,
  pick: SlotPicker = lowestFreeSlot,
): { decision: RateDecision; log: RateLog } {
  const decision = decide(log, policy, now, pick);
  return { decision, log: decision.admit ? withAdmission(log, decision.slot, now) : log };
}
