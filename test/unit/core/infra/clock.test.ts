import {
  cryptoRandom,
  jitteredBackoffMs,
  joinContentionBackoff,
  ManualClock,
  shiftedClock,
  writeContentionBackoff,
  type Clock,
} from '../../../../core/infra/clock';

const start = new Date('2026-01-01T00:00:00.000Z');
/** Resolves `promise`'s state as far as the microtask queue allows, without waiting for time. */
const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('ManualClock', () => {
  it('stands still until advanced', () => {
    const clock = new ManualClock(start);
    expect(clock.now()).toEqual(start);
    clock.advance(1_500);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:01.500Z');
  });

  it('wakes a sleeper only once time reaches its deadline', async () => {
    const clock = new ManualClock(start);
    const slept = clock.sleep(100);
    clock.advance(99);
    expect(await settled(slept)).toBe(false);
    expect(clock.pendingSleeps).toBe(1);
    clock.advance(1);
    expect(await settled(slept)).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('wakes sleepers earliest deadline first, and resolves a sleep of 0 at once', async () => {
    const clock = new ManualClock(start);
    const woke: string[] = [];
    const late = clock.sleep(30).then(() => woke.push('late'));
    const early = clock.sleep(10).then(() => woke.push('early'));
    expect(await settled(clock.sleep(0))).toBe(true);
    clock.advance(60);
    await Promise.all([late, early]);
    expect(woke).toEqual(['early', 'late']);
  });

  it('refuses to move backwards', () => {
    expect(() => new ManualClock(start).advance(-1)).toThrow(RangeError);
  });
});

describe('shiftedClock', () => {
  it('reads the offset on every call', () => {
    const base = new ManualClock(start);
    let offsetMs = 0;
    const clock: Clock = shiftedClock(() => offsetMs, base);
    expect(clock.now()).toEqual(start);
    offsetMs = 60_000;
    expect(clock.now().toISOString()).toBe('2026-01-01T00:01:00.000Z');
  });
});

describe('jitteredBackoffMs', () => {
  const policy = { baseMs: 5, capMs: 640 };

  it.each([
    [0, 5],
    [1, 10],
    [3, 40],
    [7, 640],
    [8, 640],
    [5_000, 640],
  ])('attempt %i: the largest draw is the ceiling %i ms, the smallest is 1 ms', (attempt, ceiling) => {
    expect(jitteredBackoffMs(attempt, policy, () => 1 - Number.EPSILON)).toBe(ceiling);
    expect(jitteredBackoffMs(attempt, policy, () => 0)).toBe(1);
  });

  it('spreads uniformly under the ceiling (full jitter, not equal jitter)', () => {
    expect(jitteredBackoffMs(3, policy, () => 0.5)).toBe(21);
    expect(jitteredBackoffMs(3, policy, () => 0.25)).toBe(11);
  });

  it.each([
    ['a source answering 1', () => 1],
    ['a negative source', () => -3],
    ['NaN', () => Number.NaN],
  ])('stays within [1, ceiling] for %s', (_name, random) => {
    const pause = jitteredBackoffMs(2, policy, random);
    expect(pause).toBeGreaterThanOrEqual(1);
    expect(pause).toBeLessThanOrEqual(20);
  });

  it('treats a negative attempt as the first', () => {
    expect(jitteredBackoffMs(-2, policy, () => 1 - Number.EPSILON)).toBe(5);
  });

  it('gives join 5 ms and contended writes 20 ms as first ceilings, 2.56 s at most', () => {
    expect(jitteredBackoffMs(0, joinContentionBackoff, () => 1 - Number.EPSILON)).toBe(5);
    expect(jitteredBackoffMs(1, writeContentionBackoff, () => 1 - Number.EPSILON)).toBe(20);
    expect(jitteredBackoffMs(30, writeContentionBackoff, () => 1 - Number.EPSILON)).toBe(writeContentionBackoff.capMs);
    expect(writeContentionBackoff.capMs).toBe(2_560);
  });
});

describe('cryptoRandom', () => {
  it('draws fractions in [0, 1)', () => {
    for (let i = 0; i < 200; i++) {
      const value = cryptoRandom();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
});
