import { afterTheRequestMs } from '../../../../core/infra/later';
import { RecentReads } from '../../../../core/infra/recent-reads';
import { heldLater } from '../../../helpers/held-later';

const atOnce = (begin: () => void) => begin();

describe('RecentReads', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000;
  });

  function counting(values: string[]) {
    let reads = 0;
    return {
      load: async () => values[reads++] ?? 'last',
      get reads() {
        return reads;
      },
    };
  }

  it('serves a read for maxAgeMs after it began, then reads again', async () => {
    const recent = new RecentReads<string>(5_000, clock);
    const store = counting(['first', 'second']);
    expect(await recent.read('k', store.load)).toBe('first');
    now += 2_500;
    expect(await recent.read('k', store.load)).toBe('first');
    expect(store.reads).toBe(1);
    now += 2_501;
    expect(await recent.read('k', store.load)).toBe('second');
    expect(store.reads).toBe(2);
  });

  it('past half its age, serves the entry at once and reads the next one in the background, once, a little later', async () => {
    const held = heldLater();
    const recent = new RecentReads<string>(5_000, clock, held.later);
    let release: (value: string) => void = () => undefined;
    let reads = 0;
    const load = () => {
      reads += 1;
      return reads === 1 ? Promise.resolve('first') : new Promise<string>((resolve) => (release = resolve));
    };
    expect(await recent.read('k', load)).toBe('first');
    now += 3_000;
    // Past half: the old value at once, one read ahead for all callers, and not begun beside
    // the caller's own requests.
    expect(await Promise.all([recent.read('k', load), recent.read('k', load)])).toEqual(['first', 'first']);
    expect(held.delays()).toEqual([afterTheRequestMs]);
    expect(reads).toBe(1);
    now += afterTheRequestMs;
    held.beginAll();
    expect(reads).toBe(2);
    release('second');
    await Promise.resolve();
    await Promise.resolve();
    // The new read counts from when it began (3.2 s in): served past the old one's end, no read more.
    now += 2_000;
    expect(await recent.read('k', load)).toBe('second');
    expect(reads).toBe(2);
  });

  it("begins a read ahead halfway to its entry's end when that comes before the delay", async () => {
    const held = heldLater();
    const recent = new RecentReads<string>(5_000, clock, held.later);
    await recent.read('k', async () => 'first');
    now += 4_900;
    expect(await recent.read('k', async () => 'second')).toBe('first');
    expect(held.delays()).toEqual([50]);
  });

  it('begins no read ahead for an entry forgotten while it waited', async () => {
    const held = heldLater();
    const recent = new RecentReads<string>(5_000, clock, held.later);
    let reads = 0;
    const load = async () => `read ${++reads}`;
    await recent.read('k', load);
    now += 3_000;
    await recent.read('k', load);
    recent.forget('k');
    held.beginAll();
    expect(reads).toBe(1);
  });

  it('waits for a timer before it begins the read ahead', async () => {
    jest.useFakeTimers();
    try {
      const recent = new RecentReads<string>(5_000, clock);
      let reads = 0;
      const load = async () => `read ${++reads}`;
      await recent.read('k', load);
      now += 3_000;
      await recent.read('k', load);
      expect(jest.getTimerCount()).toBe(1);
      jest.advanceTimersByTime(afterTheRequestMs - 1);
      expect(reads).toBe(1);
      jest.advanceTimersByTime(1);
      expect(reads).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('never puts a read ahead in place of a forgotten entry, nor keeps a failed one', async () => {
    const recent = new RecentReads<string>(5_000, clock, atOnce);
    let release: (value: string) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    await recent.read('k', async () => 'old');
    now += 3_000;
    await recent.read('k', () => new Promise<string>((resolve) => (release = resolve)));
    // The store's own write forgets the key while the read ahead (begun before it) is in flight.
    recent.forget('k');
    expect(await recent.read('k', async () => 'written')).toBe('written');
    release('stale');
    await Promise.resolve();
    await Promise.resolve();
    expect(await recent.read('k', async () => 'other')).toBe('written');

    now += 3_000;
    await recent.read('k', () => new Promise<string>((_resolve, reject) => (fail = reject)));
    fail(new Error('throttled'));
    await Promise.resolve();
    await Promise.resolve();
    // The failure is nobody's: the entry stays until its end, and the next caller past half tries again.
    let again = 0;
    expect(
      await recent.read('k', async () => {
        again += 1;
        return 'retried';
      }),
    ).toBe('written');
    expect(again).toBe(1);
  });

  it('keeps keys apart', async () => {
    const recent = new RecentReads<string>(5_000, clock);
    expect(await recent.read('a', async () => 'A')).toBe('A');
    expect(await recent.read('b', async () => 'B')).toBe('B');
    expect(await recent.read('a', async () => 'other')).toBe('A');
  });

  it('makes one read for callers that come while it is in flight', async () => {
    const recent = new RecentReads<string>(5_000, clock);
    let release: (value: string) => void = () => undefined;
    let reads = 0;
    const load = () => {
      reads += 1;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const callers = Array.from({ length: 50 }, () => recent.read('k', load));
    release('one');
    expect(await Promise.all(callers)).toEqual(Array.from({ length: 50 }, () => 'one'));
    expect(reads).toBe(1);
  });

  it('does not keep a failed read', async () => {
    const recent = new RecentReads<string>(5_000, clock);
    await expect(recent.read('k', async () => Promise.reject(new Error('not found')))).rejects.toThrow('not found');
    expect(await recent.read('k', async () => 'found')).toBe('found');
  });

  it('reads again after forget, for one key or all', async () => {
    const recent = new RecentReads<string>(5_000, clock);
    await recent.read('a', async () => 'A1');
    await recent.read('b', async () => 'B1');
    recent.forget('a');
    expect(await recent.read('a', async () => 'A2')).toBe('A2');
    expect(await recent.read('b', async () => 'B2')).toBe('B1');
    recent.forget();
    expect(await recent.read('b', async () => 'B3')).toBe('B3');
  });
});
