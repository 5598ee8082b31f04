import { Correlations } from '../../../../containers/controller/correlations';

describe('Correlations', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('settles a wait with its answer once, and calls the same answer again a duplicate', async () => {
    const waits = new Correlations<string, string>();
    const answer = waits.wait('c-1', 1_000);
    expect(waits.settle('c-1', 'first')).toBe('settled');
    expect(waits.settle('c-1', 'second')).toBe('duplicate');
    await expect(answer).resolves.toEqual({ kind: 'answered', value: 'first' });
    expect(waits.waiting).toBe(0);
  });

  it('times a wait out, and then treats its answer as unknown (late)', async () => {
    const waits = new Correlations<string, string>();
    const answer = waits.wait('c-1', 1_000);
    jest.advanceTimersByTime(999);
    expect(waits.waiting).toBe(1);
    jest.advanceTimersByTime(1);
    await expect(answer).resolves.toEqual({ kind: 'timeout' });
    expect(waits.settle('c-1', 'late')).toBe('unknown');
  });

  it.each([
    ['never asked', 'other'],
    ['empty', ''],
  ])('calls an answer to an id %s unknown', (_, id) => {
    const waits = new Correlations<string, string>();
    void waits.wait('c-1', 1_000);
    expect(waits.settle(id, 'x')).toBe('unknown');
    waits.cancelAll();
  });

  it('cancels one wait or all of them', async () => {
    const waits = new Correlations<number, string>();
    const one = waits.wait(1, 1_000);
    const two = waits.wait(2, 1_000);
    waits.cancel(1);
    await expect(one).resolves.toEqual({ kind: 'cancelled' });
    waits.cancelAll();
    await expect(two).resolves.toEqual({ kind: 'cancelled' });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('refuses to reuse an id that is waiting or was answered', async () => {
    const waits = new Correlations<string, string>();
    void waits.wait('c-1', 1_000);
    await expect(waits.wait('c-1', 1_000)).rejects.toThrow(/fresh/);
    waits.settle('c-1', 'x');
    await expect(waits.wait('c-1', 1_000)).rejects.toThrow(/fresh/);
  });

  it('remembers only the most recent answered ids (bounded memory)', () => {
    const waits = new Correlations<number, string>(2);
    for (const id of [1, 2, 3]) {
      void waits.wait(id, 1_000);
      waits.settle(id, 'x');
    }
    expect(waits.settle(1, 'x')).toBe('unknown');
    expect(waits.settle(2, 'x')).toBe('duplicate');
    expect(waits.settle(3, 'x')).toBe('duplicate');
  });
});
