import fc from 'fast-check';
import {
  admit,
  cutoffMs,
  decide,
  emptyRateLog,
  freeSlots,
  logTtl,
  lowestFreeSlot,
  maxRateLimit,
  mergeLogs,
  retryAfterSeconds,
  slotIsFree,
  type RateLimitPolicy,
  type RateLog,
  type SlotPicker,
} from '../../../../core/abuse/rate-limit';
import { parseConfig } from '../../../../core/infra/config';

const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms);

/** A picker driven by fast-check: any free slot, as `crypto.randomInt` might choose. */
const seeded =
  (seed: number): SlotPicker =>
  (free) =>
    free[seed % free.length]!;

/** Runs arrivals (ms after t0, in the order given) through the rule; returns admitted times. */
function run(arrivals: readonly number[], p: RateLimitPolicy = policy, pick: SlotPicker = lowestFreeSlot): number[] {
  let log: RateLog = emptyRateLog;
  const admitted: number[] = [];
  for (const ms of arrivals) {
    const result = admit(log, p, at(ms), pick);
    log = result.log;
    if (result.decision.admit) admitted.push(ms);
  }
  return admitted;
}

/** The most admissions any half-open span [t, t + windowS) holds. */
function busiestSpan(admitted: readonly number[], windowS: number): number {
  const sorted = [...admitted].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowS * 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** A log of `limit` slots holding these times (ms after t0; undefined = never written). */
const logOf = (...slots: (number | undefined)[]): RateLog => ({
  slots: slots.map((ms) => (ms === undefined ? undefined : t0 + ms)),
});

describe('freeSlots and decide', () => {
  const three = { ...policy, limit: 3 };

  it.each([
    ['an empty log', logOf(), 30_000, [0, 1, 2]],
    ['a slot exactly one window old is free', logOf(0, 1, undefined), 60_000, [0, 2]],
    ['a slot one millisecond inside the window is taken', logOf(1, 1, 1), 60_000, []],
    ['slots beyond the limit do not count', logOf(59_000, 59_000, 59_000, undefined), 60_000, []],
  ])('%s', (_name, log, nowMs, expected) => {
    expect(freeSlots(log, three, at(nowMs))).toEqual(expected);
  });

  it('admits into the slot the picker chooses among the free ones', () => {
    const log = logOf(50_000, undefined, 55_000, 0);
    const offered: number[][] = [];
    const decision = decide(log, { ...policy, limit: 4 }, at(60_000), (free) => {
      offered.push([...free]);
      return free[1]!;
    });
    expect(offered).toEqual([[1, 3]]);
    expect(decision).toEqual({ admit: true, slot: 3 });
  });

  it.each([
    ['the oldest admission half a window ago', logOf(30_000, 45_000, 59_000), 60_000, 30],
    ['the oldest one millisecond inside the window', logOf(58_000, 1, 59_999), 60_000, 1],
    ['all admitted just now', logOf(59_999, 59_999, 59_999), 60_000, 60],
    ['a fraction rounded up', logOf(40_000, 20_500, 50_000), 60_000, 21],
  ])('refuses a full log with Retry-After from its oldest slot: %s', (_name, log, nowMs, retryAfterS) => {
    expect(decide(log, three, at(nowMs))).toEqual({ admit: false, retryAfterS });
  });

  it('merges two views of a log slot by slot, the later time winning', () => {
    expect(mergeLogs(logOf(5, undefined, 9), logOf(7, 3))).toEqual(logOf(7, 3, 9));
    expect(cutoffMs(at(60_000), 60)).toBe(t0);
    expect(slotIsFree(t0, policy, at(60_000))).toBe(true);
    expect(slotIsFree(t0 + 1, policy, at(60_000))).toBe(false);
  });
});

/**
 * Requests racing against one stored log, as parallel Lambda processes do: each decides on a
 * view of the log that may be stale (a snapshot from some writes ago, as its cache holds it),
 * picks any free slot of that view, and its conditional write succeeds only if that slot is
 * free in the log as it is now; a lost write hands back the current log (ALL_OLD) for a retry.
 * Arrival times may be out of order (clocks disagree).
 */
function race(
  requests: readonly { ms: number; staleness: number; seed: number }[],
  p: RateLimitPolicy,
): { admitted: number[]; slotsWritten: Map<number, number[]> } {
  const history: RateLog[] = [emptyRateLog];
  const admitted: number[] = [];
  const slotsWritten = new Map<number, number[]>();
  for (const { ms, staleness, seed } of requests) {
    let view = history[Math.max(0, history.length - 1 - staleness)]!;
    for (let attempt = 0; attempt < 8; attempt++) {
      const decision = decide(view, p, at(ms), seeded(seed + attempt));
      if (!decision.admit) break;
      const actual = history[history.length - 1]!;
      if (!slotIsFree(actual.slots[decision.slot], p, at(ms))) {
        view = actual;
        continue;
      }
      const slots = [...actual.slots];
      slots[decision.slot] = t0 + ms;
      history.push({ slots });
      admitted.push(ms);
      slotsWritten.set(decision.slot, [...(slotsWritten.get(decision.slot) ?? []), ms]);
      break;
    }
  }
  return { admitted, slotsWritten };
}

describe('the sliding window rule', () => {
  it('admits 20, not 40, of 40 joins in 2.3 s around a minute boundary (the fixed window let all 40 through)', () => {
    const arrivals = Array.from({ length: 40 }, (_, i) => 58_850 + Math.round((i * 2300) / 39));
    expect(run(arrivals)).toHaveLength(20);
  });

  it('admits the next request exactly when the oldest admission of the window leaves it', () => {
    const burst = Array.from({ length: 20 }, (_, i) => i * 100);
    expect(run([...burst, 59_999])).toHaveLength(20);
    expect(run([...burst, 60_000])).toHaveLength(21);
    expect(run([...burst, 60_000, 60_050])).toHaveLength(21);
    expect(run([...burst, 60_000, 60_100])).toHaveLength(22);
  });

  it('never admits more than the limit in any 60 s span, for any arrival sequence (even out of order) and any slot choice', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 240_000 }), { maxLength: 300 }),
        fc.boolean(),
        fc.nat(),
        (limit, arrivals, sorted, seed) => {
          const p = { ...policy, limit };
          const admitted = run(sorted ? [...arrivals].sort((a, b) => a - b) : arrivals, p, seeded(seed));
          expect(busiestSpan(admitted, p.windowS)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never admits more than the limit in any 60 s span when requests race on stale views and random slots', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(
          fc.record({
            ms: fc.integer({ min: 0, max: 240_000 }),
            staleness: fc.integer({ min: 0, max: 30 }),
            seed: fc.nat(),
          }),
          { maxLength: 300 },
        ),
        fc.boolean(),
        (limit, requests, sorted) => {
          const p = { ...policy, limit };
          const ordered = sorted ? [...requests].sort((a, b) => a.ms - b.ms) : requests;
          const { admitted, slotsWritten } = race(ordered, p);
          expect(busiestSpan(admitted, p.windowS)).toBeLessThanOrEqual(limit);
          // The proof's invariant: one slot's admissions, in write order, are a window apart.
          for (const times of slotsWritten.values()) {
            for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(60_000);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('refuses an in-order request only when the last 60 s already hold the limit, with the exact Retry-After', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 240_000 }), { maxLength: 300 }),
        fc.nat(),
        (limit, raw, seed) => {
          const p = { ...policy, limit };
          const arrivals = [...raw].sort((a, b) => a - b);
          let log: RateLog = emptyRateLog;
          const admitted: number[] = [];
          for (const [i, ms] of arrivals.entries()) {
            const inWindow = admitted.filter((a) => a > ms - 60_000);
            const result = admit(log, p, at(ms), seeded(seed + i));
            log = result.log;
            expect(result.decision.admit).toBe(inWindow.length < limit);
            if (result.decision.admit) admitted.push(ms);
            else {
              // Retry-After points at the moment the oldest admission of the window leaves it.
              expect(result.decision.retryAfterS).toBe(Math.max(1, Math.ceil((inWindow[0]! + 60_000 - ms) / 1000)));
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a refused request changes nothing, so hammering never delays the next admission', () => {
    const full = Array.from({ length: 20 }, () => 0);
    const hammering = Array.from({ length: 500 }, (_, i) => 1 + i * 100);
    expect(run([...full, ...hammering, 60_000])).toEqual([...full, 60_000]);
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    ['a whole window ahead', 0, 0, 60],
    ['rounds a fraction up', 0, 29_999, 31],
    ['is at least 1', 0, 59_999, 1],
    ['is at least 1 even when already free', 0, 61_000, 1],
  ])('%s', (_name, slotMs, nowMs, expected) => {
    expect(retryAfterSeconds(t0 + slotMs, policy, at(nowMs))).toBe(expected);
  });

  it('waiting that long always finds a slot free', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 59_999 }), { minLength: 20, maxLength: 20 }), (ages) => {
        const now = at(100_000);
        const log: RateLog = { slots: ages.map((age) => now.getTime() - age) };
        const refused = decide(log, policy, now);
        expect(refused.admit).toBe(false);
        if (refused.admit) return;
        const retryAt = new Date(now.getTime() + refused.retryAfterS * 1000);
        expect(decide(log, policy, retryAt).admit).toBe(true);
        // …and not a whole second earlier (unless it is the 1 s floor).
        if (refused.retryAfterS > 1) expect(decide(log, policy, new Date(retryAt.getTime() - 1000)).admit).toBe(false);
      }),
    );
  });
});

describe('logTtl', () => {
  it('lets TTL collect a log only after its newest admission has left the window', () => {
    expect(logTtl(at(500), policy)).toBeGreaterThan((t0 + 500) / 1000 + policy.windowS);
  });
});

describe('configured limits', () => {
  const minimal = { TABLE_NAME: 'rooms', AUTH_ISSUER: 'https://id.example', AUTH_JWKS_URL: 'https://id.example/jwks' };

  it('defaults to 20 joins and 10 creations per account in any 60 s', () => {
    expect(parseConfig(minimal).abuse).toEqual({ joinsPerMinute: 20, createsPerMinute: 10 });
  });

  it('reads both from the environment', () => {
    const env = { ...minimal, JOIN_RATE_LIMIT_PER_MINUTE: '5', CREATE_RATE_LIMIT_PER_MINUTE: '2' };
    expect(parseConfig(env).abuse).toEqual({ joinsPerMinute: 5, createsPerMinute: 2 });
  });

  it.each([
    ['JOIN_RATE_LIMIT_PER_MINUTE', '0'],
    ['JOIN_RATE_LIMIT_PER_MINUTE', 'lots'],
    ['JOIN_RATE_LIMIT_PER_MINUTE', String(maxRateLimit + 1)],
    ['CREATE_RATE_LIMIT_PER_MINUTE', '1.5'],
  ])('fails fast naming %s = %p', (variable, value) => {
    expect(() => parseConfig({ ...minimal, [variable]: value })).toThrow(variable);
  });
});
