import { jitteredBackoffMs } from '../../../../core/infra/clock';
import { findOrCreate, racerBackoff, type FindOrCreateDependencies } from '../../../../core/matchmaking/find-or-create';
import type { FillingRoomStore } from '../../../../core/matchmaking/store';
import { aRoom } from '../../../helpers/factories';
import { ProtocolMismatchError } from '../../../../core/versions/errors';

describe('racerBackoff', () => {
  it('stays under a ceiling that doubles from 10 ms to 250 ms, and is never 0', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((wait) => jitteredBackoffMs(wait, racerBackoff, () => 0.999999))).toEqual([
      10, 20, 40, 80, 160, 250, 250,
    ]);
    expect(jitteredBackoffMs(0, racerBackoff, () => 0)).toBe(1);
  });
});

describe('findOrCreate under a race it loses', () => {
  it('pauses, with growing jittered pauses, while the winner writes the room it pointed to', async () => {
    const room = aRoom({ state: 'spawning', maxPlayers: 10 });
    let reads = 0;
    const pauses: number[] = [];
    const pointers = {
      get: async () => ({ roomId: room.roomId, since: new Date().toISOString() }),
      move: async () => false,
      roomsWithFreeSlots: async () => [],
    } as unknown as FillingRoomStore;
    const deps: FindOrCreateDependencies = {
      pointers,
      // The winner's room appears on the fourth look.
      findRoom: async () => (++reads >= 4 ? room : undefined),
      join: async () => ({ room, spawning: true, created: false }),
      create: async () => {
        throw new Error('a racer that lost the pointer must not create');
      },
      newRoomId: () => 'next',
      now: () => new Date(),
      sleep: async (ms) => void pauses.push(ms),
    };
    const joined = await findOrCreate('bucket', {}, deps);
    expect(joined.room.roomId).toBe(room.roomId);
    expect(pauses).toHaveLength(3);
    expect(pauses.every((ms, i) => ms >= 1 && ms <= 10 * 2 ** i)).toBe(true);
  });
});

describe('findOrCreate refused by the bucket room for the build', () => {
  it("judges and tells the room as the refusal found it, not the pointer's earlier read", async () => {
    // Read while spawning; by the join its server had reported another build.
    const spawning = aRoom({ state: 'spawning', maxPlayers: 10, deployment: 'd1' });
    const found = { ...spawning, state: 'ready' as const, protocol: { h: 'bbbbbbbbbbbbbbbb' } };
    const error = new ProtocolMismatchError(
      spawning.roomId,
      { added: [], removed: [], changed: [], newer: 'unknown' },
      { clientHash: 'aaaaaaaaaaaaaaaa', serverHash: 'bbbbbbbbbbbbbbbb' },
      found,
    );
    const told: unknown[] = [];
    const deps: FindOrCreateDependencies = {
      pointers: {
        get: async () => ({ roomId: spawning.roomId, since: new Date().toISOString() }),
      } as unknown as FillingRoomStore,
      findRoom: async () => spawning,
      join: () => Promise.reject(error),
      create: () => Promise.reject(new Error('the refusal is the answer: no room is made')),
      newRoomId: () => 'next',
      now: () => new Date(),
      sleep: async () => undefined,
      deployment: 'd1',
      refused: async (room) => void told.push(room),
    };
    await expect(findOrCreate('bucket', {}, deps)).rejects.toBe(error);
    expect(told).toEqual([found]);
  });
});
