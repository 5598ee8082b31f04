import { keys } from '../../../core/infra/keys';
import { roomItem, roomOf } from '../../../core/rooms/room-item';
import { seededRoom, seededVersion } from '../../bench/scenarios/discovery';
import { residentMb } from '../../bench/scenarios/footprint';
import { judgeStampede } from '../../bench/scenarios/stampede';

describe('stampede verdict', () => {
  const room = (players: number, members = players) => ({ players, maxPlayers: 10, members });

  it('counts rooms against the ideal and finds no over-fill in exactly packed rooms', () => {
    const seats = new Map([
      ['a', 10],
      ['b', 10],
      ['c', 5],
    ]);
    const readBack = new Map([
      ['a', room(10)],
      ['b', room(10)],
      ['c', room(5)],
    ]);
    expect(judgeStampede(seats, readBack, 25, 10)).toEqual({
      roomsCreated: 3,
      idealRooms: 3,
      overfill: 0,
      problems: [],
    });
  });

  it('counts seats beyond capacity whether the room or the answers show them', () => {
    const seats = new Map([
      ['a', 12],
      ['b', 10],
    ]);
    const readBack = new Map([
      ['a', room(10)],
      ['b', { players: 11, maxPlayers: 10, members: 11 }],
    ]);
    const verdict = judgeStampede(seats, readBack, 20, 10);
    expect(verdict.overfill).toBe(3);
    expect(verdict.problems).toEqual([
      'a: 12 seats handed out but 10 players',
      'b: 10 seats handed out but 11 players',
    ]);
  });

  it('reports a room missing on read-back and a members map that disagrees', () => {
    const verdict = judgeStampede(
      new Map([
        ['a', 3],
        ['gone', 1],
      ]),
      new Map([['a', room(3, 2)]]),
      4,
      10,
    );
    expect(verdict.problems).toEqual(['a: 2 members but 3 players', 'gone: not found when read back']);
  });
});

describe('discovery seeding', () => {
  const now = new Date('2026-11-24T00:00:00.000Z');

  it('writes rooms exactly as the room store does, so the indexes hold them as real rooms', () => {
    const room = seededRoom(42, '1.0.0-listed', 'local', now);
    const item = roomItem(room, {});
    expect(item).toMatchObject({ ...keys.room(room.roomId), ...keys.roomIndexes(room), type: 'room', members: {} });
    expect(roomOf(item)).toMatchObject({ roomId: room.roomId, state: 'ready', players: 0, maxPlayers: 100 });
  });

  it('puts every tenth room in the listed partition and spreads the rest', () => {
    const versions = Array.from({ length: 1000 }, (_, i) => seededVersion(i));
    expect(versions.filter((v) => v === '1.0.0-listed')).toHaveLength(100);
    expect(new Set(versions).size).toBeGreaterThan(10);
  });
});

describe('footprint', () => {
  it('reads resident memory from /proc status text, in MB', () => {
    expect(residentMb('Name:\tnode\nVmPeak:\t 999 kB\nVmRSS:\t   92160 kB\nThreads:\t7\n')).toBe(90);
    expect(residentMb('Name:\tzombie\n')).toBeUndefined();
  });
});
