import {
  KnownReadyServers,
  knownForMs,
  triedForMs,
  watchEveryMs,
  watchReads,
} from '../../../../core/pool/ready-servers';
import type { PoolKey } from '../../../../core/pool/pool-store';

const pool: PoolKey = { gameId: 'arena', version: '1.0.0', region: 'eu-west-1' };
const otherPool: PoolKey = { ...pool, region: 'us-east-1' };

/** A process's knowledge over a scripted pool: `lists` is what each read returns, in turn. */
function setup(lists: Array<string[] | Error>) {
  let nowMs = 1_000_000;
  const reads: PoolKey[] = [];
  const scheduled: Array<{ begin: () => void; delayMs: number }> = [];
  const known = new KnownReadyServers({
    read: (key) => {
      reads.push(key);
      const next = lists.shift() ?? [];
      return next instanceof Error ? Promise.reject(next) : Promise.resolve([...next]);
    },
    later: (begin, delayMs) => void scheduled.push({ begin, delayMs }),
    nowMs: () => nowMs,
    pick: () => 0,
  });
  /** Runs the background reads due now, as the timer would. */
  async function runLater(): Promise<number> {
    const due = scheduled.splice(0);
    for (const { begin } of due) begin();
    await new Promise((resolve) => setImmediate(resolve));
    return due.length;
  }
  return { known, reads, scheduled, runLater, advance: (ms: number) => (nowMs += ms) };
}

describe('KnownReadyServers', () => {
  it('offers each server of one read once, without reading again while one is known', async () => {
    const { known, reads } = setup([['a', 'b', 'c']]);
    expect(await known.next(pool)).toBe('a');
    expect(await known.next(pool)).toBe('b');
    expect(await known.next(pool)).toBe('c');
    expect(reads).toHaveLength(1);
  });

  it('reads when it knows none, and does not offer a server it offered within the minute, though still listed', async () => {
    const { known, reads } = setup([['a'], ['a', 'b'], ['a', 'b']]);
    expect(await known.next(pool)).toBe('a');
    expect(await known.next(pool)).toBe('b');
    expect(await known.next(pool)).toBeUndefined();
    expect(reads).toHaveLength(3);
  });

  it('offers a server still listed a minute after it was tried again: its hand-over failed with an error', async () => {
    const { known, advance } = setup([['a'], ['a'], ['a']]);
    expect(await known.next(pool)).toBe('a');
    advance(triedForMs - 1);
    expect(await known.next(pool)).toBeUndefined();
    advance(1);
    expect(await known.next(pool)).toBe('a');
  });

  it('gives two creates of one process that read at the same moment different servers', async () => {
    const { known } = setup([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    const [first, second] = await Promise.all([known.next(pool), known.next(pool)]);
    expect([first, second].sort()).toEqual(['a', 'b']);
  });

  it('reads again before offering what it read more than knownForMs ago', async () => {
    const { known, reads, advance } = setup([['a', 'b'], ['c']]);
    expect(await known.next(pool)).toBe('a');
    advance(knownForMs + 1);
    // `b` may have been taken elsewhere since: the fresh list is what counts.
    expect(await known.next(pool)).toBe('c');
    expect(reads).toHaveLength(2);
  });

  it('keeps pools apart', async () => {
    const { known, reads } = setup([['a'], ['x']]);
    expect(await known.next(pool)).toBe('a');
    expect(await known.next(otherPool)).toBe('x');
    expect(reads).toEqual([pool, otherPool]);
  });

  it('once it knows no ready server of a pool, reads it in the background until one is ready', async () => {
    const { known, reads, scheduled, runLater } = setup([['a'], [], ['a'], ['a', 'b']]);
    expect(await known.next(pool)).toBe('a');
    // One watch, however many creates find the pool empty meanwhile.
    expect(scheduled.map((s) => s.delayMs)).toEqual([watchEveryMs]);
    expect(await runLater()).toBe(1);
    expect(await runLater()).toBe(1);
    expect(await runLater()).toBe(1);
    // `b` is known now: the watch ends, and the next create tries it with no read of its own.
    expect(scheduled).toEqual([]);
    expect(reads).toHaveLength(4);
    expect(await known.next(pool)).toBe('b');
    expect(reads).toHaveLength(4);
  });

  it(`gives up watching after ${watchReads} reads with none, or after a failed read`, async () => {
    const empty = setup([]);
    expect(await empty.known.next(pool)).toBeUndefined();
    let rounds = 0;
    while ((await empty.runLater()) > 0) rounds++;
    expect(rounds).toBe(watchReads);
    expect(empty.reads).toHaveLength(1 + watchReads);

    const failing = setup([[], new Error('table unreachable'), ['a']]);
    expect(await failing.known.next(pool)).toBeUndefined();
    expect(await failing.runLater()).toBe(1);
    expect(await failing.runLater()).toBe(0);
    // The next create reads for itself.
    expect(await failing.known.next(pool)).toBe('a');
  });
});
