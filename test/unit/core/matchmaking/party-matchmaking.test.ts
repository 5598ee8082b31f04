import { findOrCreate, type FindOrCreateDependencies } from '../../../../core/matchmaking/find-or-create';
import type { FillingRoomStore, OpenRoom } from '../../../../core/matchmaking/store';
import { RoomFullError } from '../../../../core/rooms/join-errors';
import { aRoom } from '../../../helpers/factories';

/** A bucket whose pointer names `pointer`, whose index shows `open`, and whose joins fit by the counts. */
function bucket(pointer: OpenRoom, open: OpenRoom[], slots: number) {
  const tried: string[] = [];
  const created: string[] = [];
  const counts = new Map([pointer, ...open].map((room) => [room.roomId, room]));
  const deps: FindOrCreateDependencies = {
    pointers: {
      get: async () => ({ roomId: pointer.roomId, since: new Date().toISOString() }),
      move: async () => true,
      roomsWithRoomFor: async (_bucket: string, need: number) =>
        open.filter((room) => room.maxPlayers - room.players >= need),
    } as unknown as FillingRoomStore,
    findRoom: async (roomId) => aRoom({ roomId, ...counts.get(roomId) }),
    join: async (roomId) => {
      tried.push(roomId);
      const room = counts.get(roomId)!;
      if (room.maxPlayers - room.players < slots) throw new RoomFullError(roomId);
      return { room: aRoom({ roomId }), spawning: false, created: false };
    },
    create: async (roomId) => {
      created.push(roomId);
      return { room: aRoom({ roomId }), spawning: true, created: true };
    },
    newRoomId: () => 'new-room',
    now: () => new Date(),
    sleep: async () => undefined,
    slots,
  };
  return { deps, tried, created };
}

describe('findOrCreate for a party', () => {
  it('takes the fullest room the whole party fits in, the pointer room among them', async () => {
    const pointer = { roomId: 'pointer', players: 3, maxPlayers: 10 };
    const open = [
      { roomId: 'roomy', players: 1, maxPlayers: 10 },
      { roomId: 'snug', players: 6, maxPlayers: 10 },
      { roomId: 'tight', players: 8, maxPlayers: 10 },
    ];
    const { deps, tried, created } = bucket(pointer, open, 3);
    const joined = await findOrCreate('b', {}, deps);
    expect(joined.room.roomId).toBe('snug');
    expect(tried).toEqual(['snug']);
    expect(created).toEqual([]);
  });

  it('creates a room for the whole party when none fits, though single slots are free', async () => {
    const pointer = { roomId: 'pointer', players: 8, maxPlayers: 10 };
    const { deps, tried, created } = bucket(pointer, [{ roomId: 'other', players: 9, maxPlayers: 10 }], 3);
    const made = await findOrCreate('b', {}, deps);
    expect(made.created).toBe(true);
    expect(tried).toEqual([]);
    expect(created).toEqual(['new-room']);
  });
});
