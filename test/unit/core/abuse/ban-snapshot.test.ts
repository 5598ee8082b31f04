import { BanSnapshot, banSnapshotMaxAgeMs, banSnapshotRefreshAheadMs } from '../../../../core/abuse/ban-snapshot';
import { afterTheRequestMs } from '../../../../core/infra/later';
import { InMemoryBans } from '../../../helpers/fakes/bans';
import { heldLater } from '../../../helpers/held-later';

const taken = new Date('2026-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(taken.getTime() + ms);
const mallory = { account: 'mallory', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'ops' };

/** A snapshot taken at `taken`, its refreshes ahead held until the test begins them. */
async function snapshotTakenAtStart() {
  const bans = new InMemoryBans();
  const directory = jest.spyOn(bans, 'directory');
  const held = heldLater();
  const snapshot = new BanSnapshot(bans, held.later);
  await snapshot.lookup('alice', taken);
  expect(directory).toHaveBeenCalledTimes(1);
  return { bans, directory, held, snapshot };
}

describe('BanSnapshot refresh ahead', () => {
  it('past 0.5 s, answers from memory and refreshes once, begun a little after the requests that found it due', async () => {
    const { directory, held, snapshot } = await snapshotTakenAtStart();
    expect(snapshot.peek('alice', at(banSnapshotRefreshAheadMs - 1))).toEqual({ state: 'fresh', ban: undefined });
    expect(held.delays()).toEqual([]);

    expect(snapshot.peek('alice', at(banSnapshotRefreshAheadMs))).toEqual({ state: 'fresh', ban: undefined });
    expect(snapshot.peek('bob', at(banSnapshotRefreshAheadMs + 10))).toEqual({ state: 'fresh', ban: undefined });
    // Nothing read beside the requests; one refresh waits for all of them.
    expect(directory).toHaveBeenCalledTimes(1);
    expect(held.delays()).toEqual([afterTheRequestMs]);

    held.beginAll();
    expect(directory).toHaveBeenCalledTimes(2);
  });

  it('begins halfway to the end of the snapshot when that is sooner than the usual delay', async () => {
    const { held, snapshot } = await snapshotTakenAtStart();
    snapshot.peek('alice', at(900));
    expect(held.delays()).toEqual([50]);
  });

  it('counts the refreshed snapshot from the request that found it due plus the delay, never from later', async () => {
    const { held, snapshot } = await snapshotTakenAtStart();
    snapshot.peek('alice', at(600));
    held.beginAll();
    await new Promise((resolve) => setImmediate(resolve));
    // Begun (at the earliest) at 800 ms: fresh for 1 s from then, and no longer.
    const refreshedAt = 600 + afterTheRequestMs;
    expect(snapshot.peek('alice', at(refreshedAt + banSnapshotMaxAgeMs - 1)).state).toBe('fresh');
    expect(snapshot.peek('alice', at(refreshedAt + banSnapshotMaxAgeMs)).state).toBe('stale');
  });

  it('never stretches the 1 s bound: while the refresh waits, a ban placed elsewhere counts from 1 s after the snapshot', async () => {
    const { bans, held, snapshot } = await snapshotTakenAtStart();
    snapshot.peek('mallory', at(600));
    await bans.put(mallory);
    expect(snapshot.peek('mallory', at(banSnapshotMaxAgeMs - 1))).toEqual({ state: 'fresh', ban: undefined });
    expect(snapshot.peek('mallory', at(banSnapshotMaxAgeMs))).toEqual({ state: 'stale', knownBanned: false });
    await expect(snapshot.lookup('mallory', at(banSnapshotMaxAgeMs))).resolves.toEqual({});
    // The refresh that waited finds the snapshot young again and reads nothing.
    held.beginAll();
    expect(snapshot.peek('mallory', at(banSnapshotMaxAgeMs + 1))).toEqual({ state: 'fresh', ban: {} });
  });

  it('reads nothing when a refresh since made the snapshot young again', async () => {
    const { directory, held, snapshot } = await snapshotTakenAtStart();
    snapshot.peek('alice', at(700));
    await snapshot.lookup('alice', at(1_000));
    expect(directory).toHaveBeenCalledTimes(2);
    held.beginAll();
    expect(directory).toHaveBeenCalledTimes(2);
  });
});

describe('BanSnapshot reads that land out of order', () => {
  it('keeps the snapshot that saw a ban placed through this process over one counted from later but read before it', async () => {
    const { bans, directory, snapshot } = await snapshotTakenAtStart();
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    // This read sees the directory as it is now, before the ban, and answers only later.
    directory.mockImplementationOnce(async (epoch) => {
      const seen = await InMemoryBans.prototype.directory.call(bans, epoch);
      await answered;
      return seen;
    });
    const before = snapshot.lookup('mallory', at(2_000));
    await bans.put(mallory);
    snapshot.placed('mallory', {});
    // A request whose clock lags: it reads after the ban, and counts from an earlier time.
    await expect(snapshot.lookup('mallory', at(1_500))).resolves.toEqual({});
    answer();
    // The request that began before the ban was placed was judged by what it read.
    await expect(before).resolves.toBeUndefined();
    expect(snapshot.peek('mallory', at(2_001))).toEqual({ state: 'fresh', ban: {} });
  });
});
