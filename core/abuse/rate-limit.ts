/**
 * Per-account rate limits as fixed windows: pure rules of (policy, now). The store counts;
 * these functions say which window a request falls in and how long a refused caller waits.
 *
 * Fixed windows are exact per window (a counter item per account, action and window, raised
 * by one conditional write), at the price of the boundary: an account can spend one window's
 * allowance at its end and the next one's at the start, so any rolling 60 s sees at most
 * 2 × limit.
 *
 * ```
 *  window k                     window k+1
 *  |------------------------------|------------------------------|
 *  start                  now    end = start + windowS
 *                          |<---->| Retry-After = ceil(end − now) s, at least 1
 * ```
 */

/** What is being limited; part of the counter's key. */
export type RateLimitedAction = 'join' | 'create';

export interface RateLimitPolicy {
  readonly action: RateLimitedAction;
  /** Requests allowed per window (≥ 1). */
  readonly limit: number;
  readonly windowS: number;
}

export interface RateWindow {
  /** Epoch seconds of the window's start: the counter item's identity. */
  readonly startS: number;
  /** Epoch seconds of the first instant that belongs to the next window. */
  readonly endS: number;
}

/** Counters are dead once their window ends; TTL may remove them after this extra margin (garbage collection only). */
export const counterTtlMarginS = 60;

/** The fixed window `now` falls in. Windows are aligned to the epoch, so every process agrees on them. */
export function rateWindow(now: Date, windowS: number): RateWindow {
  const windowMs = windowS * 1000;
  const startMs = Math.floor(now.getTime() / windowMs) * windowMs;
  return { startS: startMs / 1000, endS: startMs / 1000 + windowS };
}

/** Whole seconds until the window ends, rounded up and never 0, for the `Retry-After` header. */
export function retryAfterSeconds(now: Date, window: RateWindow): number {
  return Math.max(1, Math.ceil((window.endS * 1000 - now.getTime()) / 1000));
}

/** When DynamoDB TTL may collect the counter of `window`; correctness never depends on it. */
export function counterTtl(window: RateWindow): number {
  return window.endS + counterTtlMarginS;
}
