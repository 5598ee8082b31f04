import { randomUUID } from 'node:crypto';
import { keys } from '../../../core/infra/keys';
import { RoomAlreadyExistsError } from '../../../core/rooms/errors';
import type { Room } from '../../../core/rooms/model';
import type { RoomStore } from '../../../core/rooms/room-store';
import { constantsOf } from '../../../core/sessions/model';
import { roomPropertiesUpdate } from '../../../core/sessions/patch-conditions';
import { aRoom } from '../factories';

/** A room store under test, and a look at the item it stored (index keys and `ttl` included). */
export interface RoomStoreSubject {
  readonly rooms: RoomStore;
  item(roomId: string): Promise<Record<string, unknown> | undefined>;
}

const retentionS = 3_600;
/** The store under test must keep ended rooms this long (`endedRetentionS`). */
export const roomStoreContractRetentionS = retentionS;

const at = (iso: string) => new Date(iso);
const created = '2026-01-01T00:00:00.000Z';
const ttlOf = (now: Date) => Math.ceil(now.getTime() / 1000) + retentionS;

/**
 * The rules every `RoomStore` keeps, run against the in-memory fake (unit) and the store on
 * DynamoDB Local (integration): each write holds its named conditions, bumps the change number
 * once, and a write that ends a room takes it out of every index.
 */
export function roomStoreContract(subject: () => RoomStoreSubject): void {
  /** A room as the store keeps it (with its constants, which a create fills in). */
  const room = (overrides: Partial<Room> = {}): Room => {
    const made = aRoom({ roomId: randomUUID(), bucket: 'b', createdAt: created, updatedAt: created, ...overrides });
    return { ...made, constants: constantsOf(made) };
  };

  it('creates a room once: another creation under its id is refused, the same one retried is not', async () => {
    const { rooms } = subject();
    const first = room({ state: 'spawning' });
    await rooms.createWithMember(first);
    await expect(rooms.get(first.roomId)).resolves.toEqual(first);
    await expect(rooms.createWithMember(first)).resolves.toBeUndefined();
    await expect(rooms.createWithMember({ ...first, owner: 'mallory' })).rejects.toBeInstanceOf(RoomAlreadyExistsError);
  });

  it('makes a spawning room ready once, before its deadline, with one more change', async () => {
    const { rooms } = subject();
    const late = room({ state: 'spawning', spawnDeadline: '2026-01-01T00:00:10.000Z' });
    const spawning = room({ state: 'spawning', spawnDeadline: '2026-01-01T00:01:00.000Z' });
    await rooms.createWithMember(late);
    await rooms.createWithMember(spawning);
    const now = at('2026-01-01T00:00:20.000Z');
    const ready = { address: '203.0.113.7', initedBy: 'i-1', now, settings: { map: 'dock' } };

    expect(await rooms.markReady(late.roomId, ready)).toMatchObject({ applied: false, room: { state: 'spawning' } });
    const made = await rooms.markReady(spawning.roomId, ready);
    expect(made).toEqual({
      applied: true,
      room: {
        ...spawning,
        state: 'ready',
        address: '203.0.113.7',
        initedBy: 'i-1',
        settings: { map: 'dock' },
        readyAt: now.toISOString(),
        lastHeartbeatAt: now.toISOString(),
        updatedAt: now.toISOString(),
        changeNumber: spawning.changeNumber + 1,
      },
    });
    expect(await rooms.markReady(spawning.roomId, { ...ready, initedBy: 'i-2' })).toMatchObject({
      applied: false,
      room: { initedBy: 'i-1' },
    });
  });

  it('ends a live room once: failed or closed, collected a retention later, out of every index', async () => {
    const { rooms, item } = subject();
    const failing = room({ state: 'spawning' });
    const closing = room({ state: 'ready' });
    await rooms.createWithMember(failing);
    await rooms.createWithMember(closing);
    expect(Object.keys((await item(failing.roomId)) ?? {})).toEqual(expect.arrayContaining(['gsi1pk', 'gsi3pk']));
    const now = at('2026-01-01T00:05:00.000Z');

    expect(await rooms.markFailed(failing.roomId, 'crashed', now)).toMatchObject({
      applied: true,
      room: { state: 'failed', failureReason: 'crashed', changeNumber: failing.changeNumber + 1 },
    });
    expect(await rooms.markClosed(closing.roomId, now)).toMatchObject({ applied: true, room: { state: 'closed' } });
    for (const roomId of [failing.roomId, closing.roomId]) {
      const stored = (await item(roomId)) ?? {};
      expect(stored.ttl).toBe(ttlOf(now));
      for (const name of keys.roomIndexAttributes) expect(stored).not.toHaveProperty(name);
      expect(await rooms.markFailed(roomId, 'crashed', now)).toMatchObject({ applied: false, room: { roomId } });
      expect(await rooms.recordHeartbeat(roomId, now)).toMatchObject({ applied: false });
    }
    expect(await rooms.markClosed(failing.roomId, now)).toMatchObject({ applied: false, room: { state: 'failed' } });
  });

  it('closes a room unchangedSince a read only while no write came between', async () => {
    const { rooms } = subject();
    const ready = room({ state: 'ready', changeNumber: 4 });
    await rooms.createWithMember(ready);
    const now = at('2026-01-01T00:05:00.000Z');
    await rooms.recordPlacement(ready.roomId, { taskId: 't-1', host: '203.0.113.7', ports: [7777] }, now);

    expect(await rooms.markClosed(ready.roomId, now, { changeNumber: 4 })).toMatchObject({
      applied: false,
      room: { state: 'ready', changeNumber: 5, placement: { taskId: 't-1' } },
    });
    expect(await rooms.markClosed(ready.roomId, now, { changeNumber: 5 })).toMatchObject({
      applied: true,
      room: { state: 'closed', changeNumber: 6 },
    });
  });

  it('records a heartbeat without a change, and writes nothing to a room that does not exist', async () => {
    const { rooms, item } = subject();
    const live = room({ state: 'ready' });
    await rooms.createWithMember(live);
    const now = at('2026-01-01T00:05:00.000Z');

    expect(await rooms.recordHeartbeat(live.roomId, now)).toEqual({
      applied: true,
      room: { ...live, lastHeartbeatAt: now.toISOString() },
    });
    const missing = randomUUID();
    expect(await rooms.recordPlacement(missing, { taskId: 't', host: 'h', ports: [] }, now)).toEqual({
      applied: false,
    });
    expect(await rooms.markFailed(missing, 'crashed', now)).toEqual({ applied: false });
    await expect(item(missing)).resolves.toBeUndefined();
  });

  it('applies a session write only under its conditions, and ends a session only at the change number read', async () => {
    const { rooms } = subject();
    const session = room({ state: 'ready', changeNumber: 2, properties: { joinability: 'open', custom: {} } });
    await rooms.createWithMember(session, {
      account: 'alice',
      keyHash: 'ab'.repeat(32),
      scopes: [],
      createdAt: created,
    });
    const now = at('2026-01-01T00:00:05.000Z');
    const write = (ifMatch: number, account = 'alice') =>
      roomPropertiesUpdate(
        { account, memberT: Date.parse(created), ifMatch, expired: [], now },
        { joinability: 'closed' },
        true,
      );

    // A writer that is no member (removed since its read) writes nothing: a missing attribute compares false.
    expect(await rooms.writeSession(session.roomId, write(2, 'bob'))).toMatchObject({ applied: false });

    expect(await rooms.writeSession(session.roomId, write(1))).toMatchObject({
      applied: false,
      current: { room: { changeNumber: 2 }, doc: { members: { alice: { s: 0 } } } },
    });
    expect(await rooms.writeSession(session.roomId, write(2))).toMatchObject({
      applied: true,
      read: { room: { changeNumber: 3, updatedAt: now.toISOString(), properties: { joinability: 'closed' } } },
    });
    await expect(rooms.endSession(session.roomId, 2)).resolves.toBe(false);
    await expect(rooms.endSession(session.roomId, 3)).resolves.toBe(true);
    await expect(rooms.find(session.roomId)).resolves.toBeUndefined();
  });
}
