import { judgeExactness } from '../../bench/exactness';
import { meets, pairwiseSum, percentile, perSecond, ratio, summarize } from '../../bench/stats';

describe('bench statistics', () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted

  it('takes nearest-rank percentiles of unsorted samples', () => {
    expect([percentile(samples, 50), percentile(samples, 90), percentile(samples, 99)]).toEqual([50, 90, 99]);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('summarizes p50/p90/p99, mean and max', () => {
    expect(summarize(samples)).toEqual({ n: 100, p50: 50, p90: 90, p99: 99, mean: 50.5, max: 100 });
  });

  it('pairs baseline parts measured back to back, and refuses unequal lists', () => {
    expect(pairwiseSum([1, 2], [10, 20])).toEqual([11, 22]);
    expect(() => pairwiseSum([1], [1, 2])).toThrow('cannot pair');
  });

  it('gives NaN for a ratio that cannot be measured, and such a ratio never meets a target', () => {
    expect(ratio(6, 2)).toBe(3);
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(Number.NaN, 1)).toBeNaN();
    expect(perSecond(50, 2_000)).toBe(25);
    expect(meets(Number.NaN, { kind: 'atMost', value: 2 })).toBe(false);
    expect(meets(Number.NaN, { kind: 'atLeast', value: 0.35 })).toBe(false);
  });

  it('judges targets in their direction, the bound itself included', () => {
    expect([1.9, 2, 2.1].map((v) => meets(v, { kind: 'atMost', value: 2 }))).toEqual([true, true, false]);
    expect([0.3, 0.35, 0.4].map((v) => meets(v, { kind: 'atLeast', value: 0.35 }))).toEqual([false, true, true]);
  });
});

describe('bench exactness', () => {
  const full = { roomId: 'r', winners: 99, players: 100, members: 100, maxPlayers: 100 };

  it('accepts rooms with K winners for K free slots and players = capacity = members', () => {
    expect(judgeExactness([full, { ...full, roomId: 's' }], 99)).toEqual({
      overfill: 0,
      exact: true,
      problems: [],
    });
  });

  it('counts a room whose session document has no members map as a problem, never as exact', () => {
    expect(judgeExactness([{ ...full, members: undefined }], 99)).toMatchObject({
      exact: false,
      problems: ['r: no members map in its session document'],
    });
  });

  it('counts over-fill from the stored count and from surplus winners', () => {
    const result = judgeExactness(
      [
        { ...full, players: 101, members: 101 },
        { ...full, winners: 101 },
      ],
      99,
    );
    expect(result.overfill).toBe(3);
    expect(result.exact).toBe(false);
  });

  it('reports a room left short and a count that disagrees with its members', () => {
    const result = judgeExactness(
      [
        { ...full, winners: 98, players: 99, members: 99 },
        { ...full, members: 97 },
      ],
      99,
    );
    expect(result.overfill).toBe(0);
    expect(result.problems).toEqual([
      'r: 98 winners for 99 free slots',
      'r: 99 players in 100 slots',
      'r: 97 members but 100 players',
    ]);
  });
});
