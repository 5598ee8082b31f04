import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { PlatformCache } from '../../../../core/infra/platform-cache';
import type { PoolStore } from '../../../../core/pool/pool-store';
import { WarmPool, type WarmPoolDependencies } from '../../../../core/pool/warm-pool';
import type { RoomCosts } from '../../../../core/rooms/create';
import type { HandOver, RoomStore, SessionRead } from '../../../../core/rooms/room-store';
import { aRoom } from '../../../helpers/factories';

/**
 * `takeStandby`'s order on in-memory stand-ins: the take (a conditional write) decides before
 * any game hears of the create, and what the process learned by its writes narrows its hint.
 */
const configuration = { gameId: 'g', version: '1' } as GameServerConfiguration;
const handOver = { owner: 'creator', settings: { map: 'creator' }, maxPlayers: 4 } as unknown as HandOver;

/**
 * A pool whose listed servers `free` can still be taken; everything done is logged in order.
 * `builds`: each server's build, which a take of another build's creator is refused for.
 */
function scene(listed: string[], free: string[], accepted = true, builds: Record<string, string> = {}) {
  const events: string[] = [];
  // Not 0: lru-cache takes an entry stamped at 0 for one without a TTL.
  const clock = { ms: 10_000 };
  const pool = {
    readyServers: () => {
      events.push('read list');
      return Promise.resolve(listed.map((roomId) => ({ region: 'r', roomId })));
    },
  } as unknown as PoolStore;
  const rooms = {
    find: (roomId: string) => {
      events.push(`build ${roomId}`);
      const h = builds[roomId];
      return Promise.resolve(aRoom({ roomId, state: 'ready', ...(h === undefined ? {} : { protocol: { h } }) }));
    },
    handOver: (roomId: string, _listing: unknown, over: HandOver) => {
      events.push(`take ${roomId}`);
      const h = builds[roomId];
      const won = free.includes(roomId) && (over.protocol === undefined || h === undefined || h === over.protocol);
      free.splice(free.indexOf(roomId), won ? 1 : 0);
      return Promise.resolve(
        won
          ? ({ room: aRoom({ roomId, owner: 'creator' }), doc: { members: {}, gone: {} } } as SessionRead)
          : undefined,
      );
    },
    markFailed: (roomId: string) => {
      events.push(`fail ${roomId}`);
      return Promise.resolve({ applied: true });
    },
  } as unknown as RoomStore;
  const warm = new WarmPool({
    pool,
    rooms,
    spawner: { spawn: () => Promise.reject(new Error('no start')), stop: () => Promise.resolve() },
    costs: { slots: { release: () => Promise.resolve() } } as unknown as RoomCosts,
    now: () => new Date('2026-01-01T00:00:00.000Z'),
    assign: ({ roomId }) => {
      events.push(`assign ${roomId}`);
      return Promise.resolve(accepted ? { accepted: true } : { accepted: false, detail: 'refused' });
    },
    cache: new PlatformCache({ nowMs: () => clock.ms }),
    pick: (ids) => ids[0],
  } as Partial<WarmPoolDependencies> as WarmPoolDependencies);
  return { events, warm, clock };
}

describe('WarmPool.takeStandby', () => {
  it('tells no game anything until its take won: a lost take costs one write, and the next listed server is tried', async () => {
    const { events, warm } = scene(['a', 'b'], ['b']);

    const taken = await warm.takeStandby(configuration, 'r', handOver);

    expect(taken?.room.roomId).toBe('b');
    expect(events).toEqual(['read list', 'take a', 'take b', 'assign b']);
  });

  it("skips, in the process's other creates, what its takes learned, without reading the list again", async () => {
    const { events, warm } = scene(['a', 'b', 'c'], ['b', 'c']);

    await warm.takeStandby(configuration, 'r', handOver);
    events.length = 0;
    const second = await warm.takeStandby(configuration, 'r', handOver);

    expect(second?.room.roomId).toBe('c');
    expect(events).toEqual(['take c', 'assign c']);
  });

  it('keeps the list no longer than its bound, however often its takes narrowed it', async () => {
    const { events, warm, clock } = scene(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']);

    await warm.takeStandby(configuration, 'r', handOver);
    clock.ms += 999;
    await warm.takeStandby(configuration, 'r', handOver);
    clock.ms += 2;
    events.length = 0;
    await warm.takeStandby(configuration, 'r', handOver);

    expect(events[0]).toBe('read list');
  });

  it('reads the list again for the next create once its takes left it empty', async () => {
    const { events, warm } = scene(['a'], ['a']);

    await warm.takeStandby(configuration, 'r', handOver);
    events.length = 0;
    expect(await warm.takeStandby(configuration, 'r', handOver)).toBeUndefined();

    expect(events).toEqual(['read list', 'take a']);
  });

  it('gives up after a few lost takes: the create starts cold', async () => {
    const { events, warm } = scene(['a', 'b', 'c', 'd'], []);

    expect(await warm.takeStandby(configuration, 'r', handOver)).toBeUndefined();
    expect(events).toEqual(['read list', 'take a', 'take b', 'take c']);
  });

  it('ends a server whose game refuses the room it won, and tries no other', async () => {
    const { events, warm } = scene(['a', 'b'], ['a', 'b'], false);

    expect(await warm.takeStandby(configuration, 'r', handOver)).toBeUndefined();
    expect(events).toEqual(['read list', 'take a', 'assign a', 'fail a']);
  });
});

describe('WarmPool.takeStandby for a creator of a build', () => {
  const builds: Record<string, string> = { x: 'bbbbbbbbbbbbbbbb', a: 'aaaaaaaaaaaaaaaa' };
  const of = (hash: string) => ({ ...handOver, protocol: hash });

  it('tries only servers of its build, and leaves the others listed for creators of theirs', async () => {
    const { events, warm } = scene(['x', 'a'], ['x', 'a'], true, builds);

    expect((await warm.takeStandby(configuration, 'r', of(builds.a!)))?.room.roomId).toBe('a');
    expect(events).toEqual(['read list', 'build x', 'build a', 'take a', 'assign a']);
    events.length = 0;
    expect((await warm.takeStandby(configuration, 'r', of(builds.x!)))?.room.roomId).toBe('x');
    // Neither the list nor a build read again.
    expect(events).toEqual(['take x', 'assign x']);
  });
});
