import { RecentReads } from '../../../../core/infra/recent-reads';

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
    now += 5_000;
    expect(await recent.read('k', store.load)).toBe('first');
    expect(store.reads).toBe(1);
    now += 1;
    expect(await recent.read('k', store.load)).toBe('second');
    expect(store.reads).toBe(2);
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
