import { randomUUID } from 'node:crypto';
import type { PoolKey } from '../../core/pool/pool-store';
import type { Room } from '../../core/rooms/model';
import type { HandOver } from '../../core/rooms/room-store';
import { defaultConstants } from '../../core/rooms/session-model';

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

const standbyShape = { maxPlayers: 8, reservationTimeoutS: 30 };

/** A warm-pool server's room of `key`: nobody's, closed to joins, placed on a local port. */
export function aStandbyRoom(key: PoolKey, overrides: Partial<Room> = {}): Room {
  return aRoom({
    ...key,
    state: 'ready',
    owner: '@standby',
    standby: true,
    settings: {},
    placement: { taskId: `standby-task-${randomUUID()}`, host: '127.0.0.1', ports: [40001] },
    constants: { ...defaultConstants(standbyShape), visibility: 'private' },
    properties: { joinability: 'closed', custom: {} },
    ...overrides,
  });
}

/** What a create by `account` makes of the standby room it takes (its map named after it). */
export function aHandOver(account: string): HandOver {
  const createdAt = new Date().toISOString();
  return {
    owner: account,
    settings: { map: account },
    maxPlayers: 8,
    createdAt,
    template: null,
    constants: defaultConstants(standbyShape),
    properties: { joinability: 'open', custom: {} },
    members: { [account]: { s: 0, t: Date.parse(createdAt), e: Date.parse(createdAt) + 30_000, k: 'key' } },
    host: { epoch: 1, seenAt: Date.parse(createdAt) },
  };
}
