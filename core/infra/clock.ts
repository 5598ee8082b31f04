import { randomInt } from 'node:crypto';

/**
 * Where the platform gets its time. Every rule judges against `now` from here, and every
 * wait goes through `sleep`, so a test can move time instead of waiting for it. Backoff is
 * a pure function of the attempt and a random source, so its bounds can be pinned.
 */
export interface Clock {
  now(): Date;
  /** Resolves once `ms` have passed on this clock (at once for `ms` ≤ 0). */
  sleep(ms: number): Promise<void>;
}

/** The machine's clock: what Lambda and the local cloud run on. */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/**
 * A clock that moves only when told to, for unit tests: `sleep` resolves when `advance`
 * passes its deadline, never by itself, so a test asserts order and outcome without timing.
 *
 * @example
 * const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
 * const slept = clock.sleep(100);
 * clock.advance(100); // `slept` resolves; clock.now() is 00:00:00.100
 */
export class ManualClock implements Clock {
  private nowMs: number;
  private readonly sleepers: { readonly untilMs: number; readonly wake: () => void }[] = [];

  constructor(start: Date = new Date('2026-01-01T00:00:00.000Z')) {
    this.nowMs = start.getTime();
  }

  now(): Date {
    return new Date(this.nowMs);
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((wake) => this.sleepers.push({ untilMs: this.nowMs + ms, wake }));
  }

  /** Moves time forward by `ms` and wakes every sleeper whose deadline has come, earliest first. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('a clock only moves forward');
    this.nowMs += ms;
    const due = this.sleepers.filter((sleeper) => sleeper.untilMs <= this.nowMs).sort((a, b) => a.untilMs - b.untilMs);
    for (const sleeper of due) this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
    for (const sleeper of due) sleeper.wake();
  }

  /** Sleeps not yet woken: lets a test see that code is waiting before it advances. */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }
}

/**
 * The system clock shifted by `offsetMs()` (read on every call), for integration tests that
 * judge expiries minutes ahead while the emulators still need real waits.
 */
export function shiftedClock(offsetMs: () => number, base: Clock = systemClock): Clock {
  return { now: () => new Date(base.now().getTime() + offsetMs()), sleep: (ms) => base.sleep(ms) };
}

/** A number in [0, 1), as `Math.random` returns. */
export type RandomSource = () => number;

/** 47 random bits from node:crypto as a fraction in [0, 1) (randomInt takes ranges below 2^48): the default jitter. */
export const cryptoRandom: RandomSource = () => randomInt(2 ** 47) / 2 ** 47;

export interface BackoffPolicy {
  /** The ceiling of the first retry's pause (attempt 0); it doubles with each attempt. */
  readonly baseMs: number;
  /** No pause is ever longer than this. */
  readonly capMs: number;
}

/**
 * Full jitter (a pause drawn uniformly up to an exponentially growing, capped ceiling):
 * colliding writers spread out instead of retrying in lockstep. The platform's one backoff:
 * every retry picks a policy and pauses this long. Pure but for the random source, which a
 * test passes. Always at least 1 ms and at most `min(capMs, baseMs · 2^attempt)`.
 *
 * @example
 * await clock.sleep(jitteredBackoffMs(attempt, writeContentionBackoff));
 */
export function jitteredBackoffMs(attempt: number, policy: BackoffPolicy, random: RandomSource = cryptoRandom): number {
  const exponent = Math.max(0, Math.floor(attempt));
  // 2 ** exponent is Infinity past 1023: min() still picks the cap.
  const ceiling = Math.max(1, Math.floor(Math.min(policy.capMs, policy.baseMs * 2 ** exponent)));
  const drawn = random();
  // A source outside [0, 1) (a test's, a broken one) still yields a pause within the bounds.
  const draw = drawn >= 0 ? Math.min(drawn, 1 - Number.EPSILON) : 0;
  return 1 + Math.floor(draw * ceiling);
}

/**
 * The pause between join attempts that lost a conflict (core/rooms/join.ts): 5, 10, 20, … ms
 * ceilings, small at first because a player waits on every one.
 */
export const joinContentionBackoff: BackoffPolicy = { baseMs: 5, capMs: 640 };

/**
 * The pause between attempts of a write cancelled by contention or throttling, or of a call
 * to a dependency that failed for a moment (`retryOnContention`, the queue consumer's retry
 * in place; their first retry is attempt 1): 20, 40, 80, … ms ceilings, at most 2.56 s.
 */
export const writeContentionBackoff: BackoffPolicy = { baseMs: 10, capMs: 2_560 };
