import { randomUUID } from 'node:crypto';
import { keys } from '../../../core/infra/keys';
import { RoomAlreadyExistsError } from '../../../core/rooms/errors';
import type { NewMember } from '../../../core/rooms/member';
import type { Room } from '../../../core/rooms/model';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import type { ClaimSpec, HandOver, RoomStore } from '../../../core/rooms/room-store';
import { newReservation, storedKeyHash, type StoredMember } from '../../../core/rooms/document';
import { constantsOf } from '../../../core/rooms/session-model';
import { largeClaimOf, largeReclaimPerSweep } from '../../../core/rooms/large-members';
import { roomPropertiesUpdate } from '../../../core/rooms/patch-conditions';
import { aRoom } from '../factories';

/** A room store under test, and a look at the item it stored (index keys and `ttl` included). */
export interface RoomStoreSubject {
  readonly rooms: RoomStore;
  item(roomId: string): Promise<Record<string, unknown> | undefined>;
  /** Stores an item as it is (a room written by an earlier release). */
  putItem(item: Record<string, unknown>): Promise<unknown>;
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

  it('records a heartbeat without a change, answered with the room and its document as written, and writes nothing to a room that does not exist', async () => {
    const { rooms, item } = subject();
    const live = room({ state: 'ready', players: 1 });
    await rooms.createWithMember(live, { account: 'alice', keyHash: 'ab'.repeat(32), scopes: [], createdAt: created });
    const now = at('2026-01-01T00:05:00.000Z');

    // The consumer judges the room's cost bounds on this answer: no read follows the write.
    expect(await rooms.recordHeartbeat(live.roomId, now)).toEqual({
      applied: true,
      room: { ...live, lastHeartbeatAt: now.toISOString() },
      doc: (await rooms.read(live.roomId))?.doc,
    });
    expect(Object.keys((await rooms.read(live.roomId))?.doc.members ?? {})).toEqual(['alice']);
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

  changeKindsContract(subject, room);
  memberContract(subject, room);
  handOverContract(subject, room);
  presenceContract(subject, room);
  hostContract(subject, room);
  replacementContract(subject, room);
  describe('a large session (members as their own items)', () => largeSessionContract(subject, room));
}

/** A dedicated room's server died: one replacement write per epoch, never over a write it did not read. */
function replacementContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  it('replaces the server of a migrateHost room once per epoch, only as it was read, members kept without keys', async () => {
    const { rooms, item } = subject();
    const made = room({
      state: 'ready',
      address: '203.0.113.7',
      placement: { taskId: 't-1', host: '203.0.113.7', ports: [7777] },
      host: { epoch: 1, seenAt: 0 },
      constants: { ...constantsOf(room()), migrateHost: true },
      // The dead server's build and what it was started from; the configuration has moved on since.
      protocol: { h: '1111111111111111' },
      deployment: 'aaaaaaaaaaaaaaaa',
      protocolCheck: false,
    });
    const alice = { account: 'alice', keyHash: 'ab'.repeat(32), scopes: [], createdAt: created, v: '2222222222222222' };
    await rooms.createWithMember(made, alice);
    const now = at('2026-01-01T00:00:10.000Z');
    const replacement = {
      now,
      spawnDeadline: at('2026-01-01T00:00:40.000Z'),
      deployment: 'bbbbbbbbbbbbbbbb',
      protocolCheck: true,
    };
    const read = await rooms.read(made.roomId);
    if (!read) throw new Error('room not stored');
    // A write between the read and the replacement (a join's change number): read again.
    await rooms.recordPlacement(made.roomId, { taskId: 't-1', host: '203.0.113.7', ports: [7777] }, now);
    expect(await rooms.replaceServer(read, replacement)).toMatchObject({ applied: false, room: { state: 'ready' } });

    const fresh = await rooms.read(made.roomId);
    if (!fresh) throw new Error('room not stored');
    expect(await rooms.replaceServer(fresh, replacement)).toMatchObject({
      applied: true,
      room: { state: 'spawning', host: { epoch: 2, seenAt: now.getTime() }, players: 1 },
    });
    // The same death seen by another path: the epoch moved, nothing changes.
    expect(await rooms.replaceServer(fresh, replacement)).toMatchObject({ applied: false });
    const stored = (await item(made.roomId)) ?? {};
    expect(stored).not.toHaveProperty('address');
    expect(stored).not.toHaveProperty('placement');
    // The replacement reports its own build; it is started from the configuration as it is now.
    expect(stored).not.toHaveProperty('protocol');
    expect(stored).not.toHaveProperty('protocolCheck');
    expect(stored.deployment).toBe(replacement.deployment);
    // Its seat, pending from the replacement's `inited`, without a key (its member number and
    // its client's build kept: the replacement's `joined` checks it).
    const { n: _n, ...seat } = (stored.members as Record<string, Record<string, unknown>>).alice ?? {};
    expect(seat).toEqual({ s: 0, t: now.getTime(), p: 30_000, v: alice.v });
  });

  it('replaces the server of a room whose configuration turned the build check off, keeping it off', async () => {
    const { rooms, item } = subject();
    const made = room({
      state: 'ready',
      host: { epoch: 1, seenAt: 0 },
      constants: { ...constantsOf(room()), migrateHost: true },
      deployment: 'aaaaaaaaaaaaaaaa',
    });
    await rooms.createWithMember(made, { account: 'alice', keyHash: 'ab'.repeat(32), scopes: [], createdAt: created });
    const read = await rooms.read(made.roomId);
    if (!read) throw new Error('room not stored');
    const now = at('2026-01-01T00:00:10.000Z');
    const replacement = { now, spawnDeadline: now, deployment: 'bbbbbbbbbbbbbbbb', protocolCheck: false };
    expect(await rooms.replaceServer(read, replacement)).toMatchObject({ applied: true });
    expect(await item(made.roomId)).toMatchObject({ deployment: replacement.deployment, protocolCheck: false });
  });
}

/** Every change-numbered write records its kinds at the change number it makes (`cn`); a quiet one none. */
function changeKindsContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const now = at('2026-01-01T00:00:20.000Z');
  const all = (n: number) => ({ members: n, properties: n, host: n, state: n, servers: n });

  it('records each kind a write changes at the change number it makes, and nothing for a quiet write', async () => {
    const { rooms, item } = subject();
    const spawning = room({ state: 'spawning', spawnDeadline: '2026-01-01T00:01:00.000Z', changeNumber: 1 });
    await rooms.createWithMember(spawning);
    expect((await item(spawning.roomId))?.cn).toEqual(all(1));

    await rooms.markReady(spawning.roomId, { address: '203.0.113.7', initedBy: 'i-1', now });
    expect((await item(spawning.roomId))?.cn).toEqual({ ...all(1), state: 2, servers: 2 });
    await rooms.recordHeartbeat(spawning.roomId, now);
    await rooms.claim(spawning.roomId, claimOf('bob', now), now.getTime());
    expect(await item(spawning.roomId)).toMatchObject({
      changeNumber: 3,
      cn: { ...all(1), state: 2, servers: 2, members: 3 },
    });
    await rooms.markFailed(spawning.roomId, 'crashed', now);
    expect((await item(spawning.roomId))?.cn).toEqual({ ...all(1), servers: 2, members: 3, state: 4 });
    await expect(rooms.get(spawning.roomId)).resolves.not.toHaveProperty('cn');
  });

  it('gives a room stored without kinds every kind at its change number on its first change-numbered write', async () => {
    const { rooms, item, putItem } = subject();
    const old = room({ state: 'ready', changeNumber: 7 });
    await rooms.createWithMember(old);
    const roomId = randomUUID();
    const stored: Record<string, unknown> = { ...(await item(old.roomId)), roomId, ...keys.room(roomId) };
    for (const name of ['cn', ...keys.roomIndexAttributes]) delete stored[name];
    await putItem(stored);

    await rooms.recordHeartbeat(roomId, now);
    expect(await item(roomId)).not.toHaveProperty('cn');
    expect(await rooms.markFailed(roomId, 'crashed', now)).toMatchObject({ applied: true, room: { changeNumber: 8 } });
    expect((await item(roomId))?.cn).toEqual({ ...all(7), state: 8 });
  });
}

/** A player's key: its SHA-256 (what `joined` carries) and the hash a member stores. */
const keyOf = (name: string) => {
  const hex = hashRegistrationKey(name);
  return { hex, stored: storedKeyHash(hex) };
};

const creator = (account: string, expiresAt: string): NewMember => ({
  account,
  keyHash: keyOf(account).hex,
  scopes: [],
  expiresAt,
  createdAt: created,
});

/** A join's claim of `account`, reserved at `now` for 30 s. */
const claimOf = (account: string, now: Date): ClaimSpec => ({
  members: [{ account, keyHash: keyOf(account).stored, member: { s: 0, t: now.getTime(), e: now.getTime() + 30_000 } }],
});

function memberContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const now = at('2026-01-01T00:00:10.000Z');

  it('claims a free slot in one write, answered with the state, settings, players and change number', async () => {
    const { rooms } = subject();
    const two = room({ state: 'ready', maxPlayers: 2, players: 1, changeNumber: 3 });
    await rooms.createWithMember(two, creator('alice', '2026-01-01T00:01:00.000Z'));

    expect(await rooms.claim(two.roomId, claimOf('bob', now), now.getTime())).toEqual({
      state: 'Claimed',
      roomState: 'ready',
      players: 2,
      changeNumber: 4,
      settings: two.settings,
    });
    // Full, and an account already holding a live slot: told apart on the item as it stood.
    expect(await rooms.claim(two.roomId, claimOf('carol', now), now.getTime())).toEqual({ state: 'Full' });
    expect(await rooms.claim(two.roomId, claimOf('bob', now), now.getTime())).toMatchObject({
      state: 'AlreadyMember',
      keyHash: keyOf('bob').stored,
    });
    const read = await rooms.read(two.roomId);
    expect(read?.room).toMatchObject({ players: 2, changeNumber: 4, updatedAt: now.toISOString() });
    expect(Object.keys(read?.doc.members ?? {}).sort()).toEqual(['alice', 'bob']);
    expect(await rooms.claim(randomUUID(), claimOf('bob', now), now.getTime())).toEqual({ state: 'NotFound' });
  });

  it('refuses a client of another build (Mismatch) or criteria the settings no longer hold (NotMatching)', async () => {
    const { rooms } = subject();
    const server = { h: 'bbbbbbbbbbbbbbbb', b: '2026-01-01T00:00:00.000Z' };
    const built = room({ state: 'ready', maxPlayers: 4, players: 0, protocol: server, settings: { mode: 'casual' } });
    await rooms.createWithMember(built);
    const claim = (account: string, extra: Partial<ClaimSpec>) =>
      rooms.claim(built.roomId, { ...claimOf(account, now), ...extra }, now.getTime());

    expect(await claim('x', { protocol: 'aaaaaaaaaaaaaaaa' })).toEqual({
      state: 'Mismatch',
      server,
      room: expect.objectContaining({ roomId: built.roomId, state: 'ready', protocol: server }),
    });
    expect(await claim('y', { criteria: { mode: 'ranked' } })).toEqual({ state: 'NotMatching' });
    expect(await claim('z', { protocol: server.h, criteria: { mode: 'casual' } })).toMatchObject({ state: 'Claimed' });
    expect((await rooms.read(built.roomId))?.doc.members).toEqual({
      z: expect.objectContaining({ v: server.h }),
    });
  });

  it('re-keys a member with the build this join sent, and refuses one its server is not of', async () => {
    const { rooms } = subject();
    const [first, second] = ['aaaaaaaaaaaaaaaa', 'cccccccccccccccc'];
    const reissue = async (roomId: string, account: string, newKeyHash: string, protocol?: string) => {
      const member = (await rooms.read(roomId))!.doc.members[account]!;
      return rooms.reissueKey(roomId, {
        account,
        member,
        oldKeyHash: member.k!,
        newKeyHash,
        now: now.getTime(),
        ...(protocol === undefined ? {} : { protocol }),
      });
    };
    const memberOf = async (roomId: string, account: string) => (await rooms.read(roomId))?.doc.members[account];

    // Joined while the room spawned (no server build yet), then again with another build.
    const spawning = room({ state: 'spawning', maxPlayers: 4, players: 0 });
    await rooms.createWithMember(spawning);
    await rooms.claim(spawning.roomId, { ...claimOf('x', now), protocol: first }, now.getTime());
    expect(await reissue(spawning.roomId, 'x', 'k2', second)).toBe('Reissued');
    expect(await memberOf(spawning.roomId, 'x')).toMatchObject({ k: 'k2', v: second });
    // Undone (the account checks refused that join): the old key and its build are back.
    const previous = { previousKeyHash: keyOf('x').stored, previousBuild: first };
    await rooms.undoClaim(spawning.roomId, { account: 'x', keyHash: 'k2', ...previous, reissued: true }, now);
    expect(await memberOf(spawning.roomId, 'x')).toMatchObject({ k: keyOf('x').stored, v: first });
    expect(await reissue(spawning.roomId, 'x', 'k3')).toBe('Reissued');
    expect(await memberOf(spawning.roomId, 'x')).not.toHaveProperty('v');

    const server = { h: first };
    const ready = room({ state: 'ready', maxPlayers: 4, players: 0, protocol: server });
    await rooms.createWithMember(ready);
    await rooms.claim(ready.roomId, { ...claimOf('y', now), protocol: first }, now.getTime());
    expect(await reissue(ready.roomId, 'y', 'k2', second)).toEqual({
      state: 'Mismatch',
      server,
      room: expect.objectContaining({ roomId: ready.roomId, protocol: server }),
    });
    expect(await memberOf(ready.roomId, 'y')).toMatchObject({ k: keyOf('y').stored, v: first });
  });

  it('reclaims an expired reservation and claims its slot in the same write', async () => {
    const { rooms } = subject();
    const one = room({ state: 'ready', maxPlayers: 1, players: 1 });
    await rooms.createWithMember(one, creator('alice', '2026-01-01T00:00:05.000Z'));

    const refused = await rooms.claim(one.roomId, claimOf('bob', now), now.getTime());
    expect(refused).toMatchObject({ state: 'Reclaim', expired: [{ account: 'alice' }] });
    const expired = refused.state === 'Reclaim' ? refused.expired : [];
    expect(
      await rooms.reclaimAndClaim(one.roomId, { ...claimOf('bob', now), expired, maxPlayers: 1 }, now.getTime()),
    ).toMatchObject({ state: 'Claimed', players: 1 });
    // The expired member as read is gone: the same reclaim again holds no longer.
    expect(
      await rooms.reclaimAndClaim(one.roomId, { ...claimOf('carol', now), expired, maxPlayers: 1 }, now.getTime()),
    ).toMatchObject({ state: 'Full' });
    expect(Object.keys((await rooms.read(one.roomId))?.doc.members ?? {})).toEqual(['bob']);
  });

  it('confirms a key once: the same request again gets the same answer, any other is rejected and writes nothing', async () => {
    const { rooms, item } = subject();
    const ready = room({ state: 'ready', players: 1 });
    await rooms.createWithMember(ready, creator('alice', '2026-01-01T00:01:00.000Z'));
    const key = keyOf('alice').hex;

    const unconfirmed = (await rooms.read(ready.roomId))!;
    const first = await rooms.confirm(unconfirmed, key, 'game-request-1', now);
    expect(first).toMatchObject({
      state: 'Confirmed',
      member: { account: 'alice', state: 'active', keyUsedBy: 'game-request-1', confirmedAt: now.toISOString() },
    });
    const confirmedMember = first.state === 'Confirmed' ? first.member : undefined;
    const later = at('2026-01-01T00:00:20.000Z');
    const before = await item(ready.roomId);

    const again = { state: 'AlreadyConfirmed', member: confirmedMember };
    expect(await rooms.confirm((await rooms.read(ready.roomId))!, key, 'game-request-1', later)).toEqual(again);
    expect(await rooms.confirm((await rooms.read(ready.roomId))!, key, 'game-request-2', later)).toEqual({
      state: 'Rejected',
      reason: 'used',
    });
    // Judged on a read from before the first confirmation: the write's refusal decides, on the item as it stood.
    expect(await rooms.confirm(unconfirmed, key, 'game-request-1', later)).toEqual(again);
    expect(await rooms.confirm(unconfirmed, key, 'game-request-2', later)).toEqual({
      state: 'Rejected',
      reason: 'used',
    });
    expect(await item(ready.roomId)).toEqual(before);
    expect(await rooms.confirm((await rooms.read(ready.roomId))!, keyOf('mallory').hex, 'r', later)).toEqual({
      state: 'Rejected',
      reason: 'unknown-key',
    });
  });

  it("undoes only the abandoned request's confirmation", async () => {
    const { rooms } = subject();
    const ready = room({ state: 'ready', players: 1 });
    await rooms.createWithMember(ready, creator('alice', '2026-01-01T00:01:00.000Z'));
    const key = keyOf('alice').hex;
    await rooms.confirm((await rooms.read(ready.roomId))!, key, 'game-request-1', now);

    await expect(rooms.abandon(ready.roomId, key, 'game-request-2', now)).resolves.toBe('NothingToUndo');
    await expect(rooms.abandon(ready.roomId, key, 'game-request-1', now)).resolves.toBe('Reverted');
    expect(await rooms.findMember(ready.roomId, 'alice')).toMatchObject({
      state: 'reserved',
      keyHash: keyOf('alice').stored,
    });
    expect((await rooms.findMember(ready.roomId, 'alice'))?.keyUsedBy).toBeUndefined();
  });

  it('leaves once: the slot frees, the left is remembered for its redelivery, another request is rejected', async () => {
    const { rooms } = subject();
    const ready = room({ state: 'ready', players: 1, changeNumber: 1 });
    await rooms.createWithMember(ready, creator('alice', '2026-01-01T00:01:00.000Z'));
    const key = keyOf('alice').hex;

    await expect(rooms.leave(ready.roomId, key, 'left-1', now)).resolves.toEqual({ state: 'Left' });
    const read = await rooms.read(ready.roomId);
    expect(read?.room).toMatchObject({ players: 0, changeNumber: 2, emptySince: now.getTime() });
    expect(read?.doc.members).toEqual({});
    expect(Object.keys(read?.doc.gone ?? {})).toEqual([keyOf('alice').stored]);
    await expect(rooms.leave(ready.roomId, key, 'left-1', now)).resolves.toEqual({ state: 'Left' });
    await expect(rooms.leave(ready.roomId, key, 'left-2', now)).resolves.toEqual({ state: 'Rejected' });
    expect((await rooms.read(ready.roomId))?.room.changeNumber).toBe(2);
  });
}

function handOverContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const pool = { gameId: 'pooled', version: '1', region: 'eu-west-1' };
  const handOver = (owner: string): HandOver => {
    const made = room();
    return {
      owner,
      settings: { map: owner },
      maxPlayers: 4,
      createdAt: '2026-01-01T00:02:00.000Z',
      template: null,
      constants: constantsOf(made),
      properties: { joinability: 'open', custom: {} },
      members: { [owner]: { s: 0, t: Date.parse('2026-01-01T00:02:00.000Z'), k: keyOf(owner).stored } },
      host: { epoch: 1, seenAt: Date.parse('2026-01-01T00:02:00.000Z') },
    };
  };
  const standby = (state: Room['state'] = 'ready'): Room => {
    const { bucket: _bucket, ...server } = room({
      ...pool,
      state,
      standby: true,
      owner: '@standby',
      players: 0,
      changeNumber: 1,
    });
    return server;
  };

  it('hands a ready standby server to one create: listed for it, out of the standby index', async () => {
    const { rooms, item } = subject();
    const server = standby();
    await rooms.createWithMember(server);
    expect(await item(server.roomId)).toMatchObject({ gsi1pk: keys.standbyIndex(pool.gameId, pool.version) });

    const won = await rooms.handOver(server.roomId, pool, handOver('winner'));
    expect(won?.room).toMatchObject({
      owner: 'winner',
      settings: { map: 'winner' },
      players: 1,
      changeNumber: 2,
      readyAt: '2026-01-01T00:02:00.000Z',
      updatedAt: '2026-01-01T00:02:00.000Z',
    });
    expect(won?.room.standby).toBeUndefined();
    expect(Object.keys(won?.doc.members ?? {})).toEqual(['winner']);
    const stored = (await item(server.roomId)) ?? {};
    expect(stored).not.toHaveProperty('gsi1pk');
    expect(stored).not.toHaveProperty('gsi1sk');
    expect(stored).toMatchObject({
      gsi2pk: keys.listingIndex(pool.gameId, pool.version, pool.region),
      gsi2sk: `2026-01-01T00:02:00.000Z#${server.roomId}`,
      gsi3sk: server.roomId,
    });
    // The loser gets nothing and changes nothing.
    expect(await rooms.handOver(server.roomId, pool, handOver('loser'))).toBeUndefined();
    expect(await item(server.roomId)).toEqual(stored);
  });

  it('hands over no server that ended or is not ready yet', async () => {
    const { rooms } = subject();
    const ended = standby();
    const starting = standby('spawning');
    await rooms.createWithMember(ended);
    await rooms.createWithMember(starting);
    await rooms.markFailed(ended.roomId, 'crashed', at('2026-01-01T00:01:00.000Z'));

    expect(await rooms.handOver(ended.roomId, pool, handOver('late'))).toBeUndefined();
    expect(await rooms.handOver(starting.roomId, pool, handOver('early'))).toBeUndefined();
    expect(await rooms.handOver(randomUUID(), pool, handOver('nobody'))).toBeUndefined();
  });

  it("hands a creator's build only a server of that build, or one that reported none", async () => {
    const { rooms } = subject();
    const other = { ...standby(), protocol: { h: 'bbbbbbbbbbbbbbbb' } };
    const same = { ...standby(), protocol: { h: 'aaaaaaaaaaaaaaaa' } };
    const bare = standby();
    for (const server of [other, same, bare]) await rooms.createWithMember(server);
    const creating = (account: string) => ({ ...handOver(account), protocol: 'aaaaaaaaaaaaaaaa' });

    expect(await rooms.handOver(other.roomId, pool, creating('a'))).toBeUndefined();
    expect((await rooms.handOver(same.roomId, pool, creating('b')))?.room.owner).toBe('b');
    expect((await rooms.handOver(bare.roomId, pool, creating('c')))?.room.owner).toBe('c');
    expect((await rooms.get(other.roomId)).standby).toBe(true);
  });
}

/** Sockets as presence (core/rooms/presence.ts) and the arbiter's saved state, read apart from the room. */
function presenceContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const t = (s: number) => at(`2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`);
  /** A ready room with alice active, its template making sockets presence or not. */
  async function withActiveAlice(disconnectedMs?: number, inactiveMs: number | null = null) {
    const { rooms, item } = subject();
    const made = room({ state: 'ready', players: 1 });
    const timeouts = {
      ...constantsOf(made).timeouts,
      inactiveMs,
      ...(disconnectedMs === undefined ? {} : { disconnectedMs }),
    };
    const live = { ...made, constants: { ...constantsOf(made), timeouts } };
    await rooms.createWithMember(live, { account: 'alice', keyHash: 'ab'.repeat(32), scopes: [], createdAt: created });
    await rooms.writeSession(live.roomId, { change: { set: [[['members', 'alice', 's'], 2]] }, now: t(1) });
    const stored = async () => (await item(live.roomId)) as { changeNumber: number; members: Record<string, object> };
    return { rooms, roomId: live.roomId, stored };
  }

  it('records when the last socket of an active member closed, once, and clears it when a socket is heard', async () => {
    const { rooms, roomId, stored } = await withActiveAlice(5_000);
    const before = (await stored()).changeNumber;
    await rooms.noteSocketLost(roomId, 'alice', t(2));
    expect(await stored()).toMatchObject({ changeNumber: before + 1, members: { alice: { s: 2, d: t(2).getTime() } } });
    // The first close counts: a second one does not push the timeout back.
    await rooms.noteSocketLost(roomId, 'alice', t(3));
    expect(await stored()).toMatchObject({ changeNumber: before + 1, members: { alice: { d: t(2).getTime() } } });

    await rooms.noteSocketAlive(roomId, 'alice', t(4));
    expect((await stored()).members.alice).not.toHaveProperty('d');
    expect((await stored()).changeNumber).toBe(before + 2);
    await rooms.noteSocketAlive(roomId, 'alice', t(5));
    expect((await stored()).changeNumber).toBe(before + 2);
  });

  it('records nothing without disconnectedMs, for a member not active, or in a room that does not exist', async () => {
    const plain = await withActiveAlice();
    await plain.rooms.noteSocketLost(plain.roomId, 'alice', t(2));
    expect((await plain.stored()).members.alice).not.toHaveProperty('d');

    const { rooms, roomId, stored } = await withActiveAlice(5_000);
    await rooms.writeSession(roomId, { change: { set: [[['members', 'alice', 's'], 3]] }, now: t(2) });
    await rooms.noteSocketLost(roomId, 'alice', t(3));
    await rooms.noteSocketLost(roomId, 'bob', t(3));
    expect((await stored()).members).toEqual({ alice: expect.not.objectContaining({ d: expect.anything() }) });

    const missing = randomUUID();
    await rooms.noteSocketLost(missing, 'alice', t(3));
    await rooms.noteSocketAlive(missing, 'alice', t(3));
    await expect(subject().item(missing)).resolves.toBeUndefined();
  });

  it('never frees the slot of a disconnected member heard again since the read that judged it expired', async () => {
    const { rooms, roomId, stored } = await withActiveAlice(5_000, 10_000);
    await rooms.noteSocketLost(roomId, 'alice', t(2));
    const read = await rooms.read(roomId);
    await rooms.noteSocketAlive(roomId, 'alice', t(3));
    // Judged on the read: inactive from 00:07, expired from 00:17.
    await expect(rooms.reclaimExpired(roomId, t(30), read)).resolves.toBe(0);
    expect(Object.keys((await stored()).members)).toEqual(['alice']);

    await rooms.noteSocketLost(roomId, 'alice', t(4));
    await expect(rooms.reclaimExpired(roomId, t(30))).resolves.toBe(1);
  });

  it('reads the saved state beside the room, never on it', async () => {
    const { rooms, roomId } = await withActiveAlice();
    const saved = { e: 3, at: t(2).getTime(), d: '{"round":4}' };
    const written = await rooms.writeSession(roomId, { change: { set: [[['saved'], saved]] }, now: t(2) });
    expect(written).toMatchObject({ applied: true, read: { saved: { epoch: 3, savedAt: saved.at, state: saved.d } } });
    const read = await rooms.read(roomId);
    expect(read?.saved).toEqual({ epoch: 3, savedAt: saved.at, state: saved.d });
    expect(read?.room).not.toHaveProperty('saved');
  });
}

/** The arbiter on the room item (`host`: `{ e, a?, s, r? }`), and its sign of life from its sockets. */
function hostContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const t = (s: number) => at(`2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`);

  it('stores the arbiter in short names and reads it back as it was given', async () => {
    const { rooms, item } = subject();
    const made = room({ state: 'ready', host: { epoch: 1, account: 'alice', seenAt: t(0).getTime() } });
    await rooms.createWithMember(made);
    expect(await item(made.roomId)).toMatchObject({ host: { e: 1, a: 'alice', s: t(0).getTime() } });
    await expect(rooms.get(made.roomId)).resolves.toEqual(made);
  });

  it("records the host's socket as its sign of life without a change, and nobody else's", async () => {
    const { rooms, item } = subject();
    const made = room({ state: 'ready', host: { epoch: 2, account: 'alice', seenAt: t(0).getTime() } });
    await rooms.createWithMember(made);
    const stored = async () => (await item(made.roomId)) as { changeNumber: number; host: Record<string, unknown> };
    const before = await stored();

    await rooms.noteSocketAlive(made.roomId, 'bob', t(3));
    expect(await stored()).toEqual(before);
    await rooms.noteSocketAlive(made.roomId, 'alice', t(4));
    expect(await stored()).toMatchObject({
      changeNumber: before.changeNumber,
      host: { e: 2, a: 'alice', s: t(4).getTime() },
    });

    await rooms.writeSession(made.roomId, { change: { set: [[['state'], 'closed']] }, now: t(5), ends: true });
    await rooms.noteSocketAlive(made.roomId, 'alice', t(6));
    expect((await stored()).host).toMatchObject({ s: t(4).getTime() });
  });
}

/**
 * A `large` session (core/rooms/large-members.ts): the room's item counts `players` and never
 * holds `members`; each member is its own item, and every write of a member and of the count
 * is one transaction, so the count and the items always agree.
 */
function largeSessionContract(subject: () => RoomStoreSubject, room: (overrides?: Partial<Room>) => Room): void {
  const t0 = Date.parse('2026-01-01T00:01:00.000Z');
  const reservedMs = 60_000;
  const largeRoom = (maxMembers: number): Room =>
    room({
      state: 'ready',
      hosting: 'peerHosted',
      players: 0,
      maxPlayers: maxMembers,
      readyAt: created,
      constants: {
        maxMembers,
        visibility: 'open',
        timeouts: { reservedMs, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
        custom: {},
        capabilities: ['large'],
      },
    });
  const seat = (made: Room, account: string, at: number, key = `${account}-key`) => ({
    account,
    keyHash: keyOf(key).stored,
    member: newReservation(made, at, constantsOf(made).timeouts, []),
  });
  const claim = (rooms: RoomStore, made: Room, accounts: readonly string[], at: number) =>
    rooms.large.claim(
      made.roomId,
      largeClaimOf(
        {
          members: accounts.map((a) => seat(made, a, at)),
          ...(accounts.length > 1 ? { maxPlayers: made.maxPlayers } : {}),
        },
        made,
      ),
      at,
    );
  /** A session of `accounts`, each joined at `at`. */
  async function session(rooms: RoomStore, maxMembers: number, accounts: readonly string[], at = t0): Promise<Room> {
    const made = largeRoom(maxMembers);
    await rooms.createWithMember(made);
    for (const account of accounts) expect(await claim(rooms, made, [account], at)).toMatchObject({ state: 'Claimed' });
    return made;
  }
  const accounts = (n: number, prefix = 'p') =>
    Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
  const stored = async (rooms: RoomStore, made: Room, account: string) =>
    (await rooms.read(made.roomId, account))?.doc.members[account];
  const players = async (rooms: RoomStore, made: Room) => (await rooms.read(made.roomId))?.room.players;

  it('joins into member items: the room counts them and never holds the list', async () => {
    const { rooms, item } = subject();
    const made = await session(rooms, 5, ['alice', 'bob'], t0);
    const kept = (await item(made.roomId)) ?? {};
    expect(kept).toMatchObject({ players: 2 });
    expect(kept).not.toHaveProperty('members');
    expect((await rooms.read(made.roomId))?.doc.members).toEqual({});
    expect(await stored(rooms, made, 'bob')).toMatchObject({ s: 0, t: t0, k: keyOf('bob-key').stored });
    expect(await stored(rooms, made, 'carol')).toBeUndefined();
  });

  it('refuses a join into a full session with Full, writing nothing', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 2, ['alice', 'bob']);
    expect(await claim(rooms, made, ['carol'], t0 + 1_000)).toEqual({ state: 'Full' });
    expect(await players(rooms, made)).toBe(2);
    expect(await stored(rooms, made, 'carol')).toBeUndefined();
  });

  it('answers a live member joining again AlreadyMember, and re-keys it only while it holds the key read', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 5, ['alice']);
    const again = seat(made, 'alice', t0 + 1_000, 'alice-second-key');
    const outcome = await rooms.large.claim(made.roomId, largeClaimOf({ members: [again] }, made), t0 + 1_000);
    expect(outcome).toMatchObject({ state: 'AlreadyMember', keyHash: keyOf('alice-key').stored, member: { t: t0 } });
    const held = outcome as { member: StoredMember; keyHash: string };
    const rekey = (oldKeyHash: string) =>
      rooms.large.reissueKey(made.roomId, {
        account: 'alice',
        member: held.member,
        oldKeyHash,
        newKeyHash: again.keyHash,
        now: t0 + 1_000,
      });
    expect(await rekey(held.keyHash)).toBe('Reissued');
    expect(await rekey(held.keyHash)).toBe('Gone');
    expect(await stored(rooms, made, 'alice')).toMatchObject({ k: again.keyHash, t: t0 });
    expect(await players(rooms, made)).toBe(1);
  });

  it('leaves: the member item goes with its count, once', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 5, ['alice', 'bob']);
    expect(await rooms.leaveAsPlayer(made.roomId, 'alice', at('2026-01-01T00:01:05.000Z'))).toBe(true);
    expect(await rooms.leaveAsPlayer(made.roomId, 'alice', at('2026-01-01T00:01:06.000Z'))).toBe(false);
    expect(await players(rooms, made)).toBe(1);
    expect(await stored(rooms, made, 'alice')).toBeUndefined();
  });

  it('confirms (joined) and removes (left) a member by its key, each once per request', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 5, ['alice', 'bob']);
    const read = (await rooms.read(made.roomId))!;
    const now = at('2026-01-01T00:01:10.000Z');
    const hex = keyOf('alice-key').hex;
    expect(await rooms.confirm(read, hex, 'r-joined', now)).toMatchObject({ state: 'Confirmed' });
    expect(await rooms.confirm(read, hex, 'r-joined', now)).toMatchObject({ state: 'AlreadyConfirmed' });
    expect(await rooms.confirm(read, hex, 'r-other', now)).toEqual({ state: 'Rejected', reason: 'used' });
    expect(await rooms.confirm(read, keyOf('nobody-key').hex, 'r-x', now)).toMatchObject({ state: 'Rejected' });
    expect(await stored(rooms, made, 'alice')).toMatchObject({ s: 2, u: 'r-joined' });

    expect(await rooms.leave(made.roomId, hex, 'r-left', now)).toEqual({ state: 'Left' });
    expect(await rooms.leave(made.roomId, hex, 'r-left', now)).toEqual({ state: 'Left' });
    expect(await rooms.leave(made.roomId, hex, 'r-late', now)).toEqual({ state: 'Rejected' });
    expect(await players(rooms, made)).toBe(1);
    expect(await stored(rooms, made, 'alice')).toBeUndefined();
  });

  it('a join that finds the session full removes the expired reservations in its own transaction', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 3, ['alice', 'bob', 'carol'], t0);
    const late = t0 + reservedMs + 1;
    expect(await claim(rooms, made, ['dave'], late)).toMatchObject({ state: 'Claimed' });
    expect(await players(rooms, made)).toBe(1);
    for (const gone of ['alice', 'bob', 'carol']) expect(await stored(rooms, made, gone)).toBeUndefined();
    expect(await stored(rooms, made, 'dave')).toMatchObject({ t: late });
  });

  it('takes a party of 3 into 2 free slots never: Full, and nothing written', async () => {
    const { rooms, item } = subject();
    const made = await session(rooms, 5, ['alice', 'bob', 'carol']);
    const before = await item(made.roomId);
    expect(await claim(rooms, made, ['dave', 'erin', 'frank'], t0 + 1_000)).toEqual({ state: 'Full' });
    expect(await item(made.roomId)).toEqual(before);
    for (const account of ['dave', 'erin', 'frank']) expect(await stored(rooms, made, account)).toBeUndefined();
    expect(await claim(rooms, made, ['dave', 'erin'], t0 + 1_000)).toMatchObject({ state: 'Claimed' });
    expect(await players(rooms, made)).toBe(5);
  });

  it('a party join that must reclaim stays within 100 items a transaction (room + members + removals)', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 100, accounts(20, 'old'), t0);
    const late = t0 + reservedMs + 1;
    // 80 free slots, 85 joining: 5 expired must go, and only 100 − 1 − 85 = 14 fit beside the puts.
    expect(await claim(rooms, made, accounts(85, 'new'), late)).toMatchObject({ state: 'Claimed' });
    expect(await players(rooms, made)).toBe(85 + 20 - 14);
  }, 60_000);

  it('keeps a member re-keyed by a join confirmable: the single-use mark goes with the old key', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 5, ['alice']);
    const now = at('2026-01-01T00:01:10.000Z');
    const read = (await rooms.read(made.roomId))!;
    expect(await rooms.confirm(read, keyOf('alice-key').hex, 'r-first', now)).toMatchObject({ state: 'Confirmed' });
    const again = seat(made, 'alice', now.getTime(), 'alice-second-key');
    const held = (await rooms.large.claim(made.roomId, largeClaimOf({ members: [again] }, made), now.getTime())) as {
      member: StoredMember;
      keyHash: string;
    };
    const change = { account: 'alice', member: held.member, oldKeyHash: held.keyHash, newKeyHash: again.keyHash };
    expect(await rooms.large.reissueKey(made.roomId, { ...change, now: now.getTime() })).toBe('Reissued');
    const second = await rooms.confirm(read, keyOf('alice-second-key').hex, 'r-second', now);
    expect(second).toMatchObject({ state: 'Confirmed' });
    expect(await stored(rooms, made, 'alice')).toMatchObject({ u: 'r-second' });
  });

  it('abandons a confirmation the game never got: the member is reserved again, once', async () => {
    const { rooms } = subject();
    const made = await session(rooms, 5, ['alice']);
    const now = at('2026-01-01T00:01:10.000Z');
    const hex = keyOf('alice-key').hex;
    expect(await rooms.confirm((await rooms.read(made.roomId))!, hex, 'r-joined', now)).toMatchObject({
      state: 'Confirmed',
    });
    expect(await rooms.abandon(made.roomId, hex, 'r-other', now)).toBe('NothingToUndo');
    expect(await rooms.abandon(made.roomId, hex, 'r-joined', now)).toBe('Reverted');
    expect(await stored(rooms, made, 'alice')).toMatchObject({ s: 0, t: t0, k: keyOf('alice-key').stored });
    expect(await stored(rooms, made, 'alice')).not.toHaveProperty('u');
    expect(await rooms.abandon(made.roomId, hex, 'r-joined', now)).toBe('NothingToUndo');
    expect(await players(rooms, made)).toBe(1);
  });

  it("the sweeper's reclaim removes expired reservations with their count, at most a bounded number a run", async () => {
    const { rooms } = subject();
    const lapsing = accounts(largeReclaimPerSweep + 2);
    const made = largeRoom(lapsing.length + 1);
    await rooms.createWithMember(made);
    await Promise.all(lapsing.map((a) => claim(rooms, made, [a], t0)));
    expect(await claim(rooms, made, ['keeper'], t0 + reservedMs)).toMatchObject({ state: 'Claimed' });
    const late = new Date(t0 + reservedMs + 1);
    expect(await rooms.reclaimExpired(made.roomId, late)).toBe(largeReclaimPerSweep);
    expect(await players(rooms, made)).toBe(3);
    expect(await rooms.reclaimExpired(made.roomId, late)).toBe(2);
    expect(await players(rooms, made)).toBe(1);
    expect(await stored(rooms, made, 'keeper')).toBeDefined();
    expect((await rooms.large.page(made.roomId, made, late.getTime())).members.map((m) => m.account)).toEqual([
      'keeper',
    ]);
  }, 60_000);
}
