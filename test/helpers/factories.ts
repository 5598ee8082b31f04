import { randomUUID } from 'node:crypto';
import type { Room } from '../../core/rooms/model';

export function aRoom(overrides: Partial<Room> = {}): Room {
  const now = new Date('2026-01-01T00:00:00.000Z').toISOString();
  return {
    roomId: randomUUID(),
    gameId: 'sample',
    version: '1.0.0',
    region: 'local',
    state: 'ready',
    settings: { map: 'harbor' },
    maxPlayers: 8,
    players: 0,
    changeNumber: 1,
    createdAt: now,
    updatedAt: now,
    owner: 'alice',
    reservationTimeoutS: 30,
    spawnDeadline: '2026-01-01T00:00:30.000Z',
    ...overrides,
  };
}
