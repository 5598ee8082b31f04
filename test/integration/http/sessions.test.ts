import { shiftedClock } from '../../../core/infra/clock';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { configurePlatform } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The session routes of docs/api.md ("Session documents") over real HTTP on DynamoDB Local: room
 * views with ETag, visibility, PATCH conditions and races, member states, timeouts judged at
 * the platform's clock (moved by `offsetMs`), peer-hosted sessions. The spawner records spawns
 * and never starts a server, so dedicated rooms stay spawning (202).
 */
let api: TestApi;
let admin: string;
let offsetMs = 0;
const spawned: SpawnRequest[] = [];
const tokens = new Map<string, string>();

class RecordingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

async function token(account: string): Promise<string> {
  const known = tokens.get(account);
  if (known) return known;
  const minted = await api.platform.token(account);
  tokens.set(account, minted);
  return minted;
}

async function put(path: string, body: unknown): Promise<void> {
  const response = await api.call('PUT', path, { token: admin, body });
  if (response.status !== 200) throw new Error(`PUT ${path}: ${JSON.stringify(response.body)}`);
}

/** The room as stored (undefined once deleted), read past every rule. */
const storedRoom = async (roomId: string) =>
  (await dynamoRoomStore(api.platform.db, api.platform.tableName).read(roomId))?.room;
const template = (name: string, body: Record<string, unknown>) => put(`/v1/admin/templates/${name}`, body);
const as = async (account: string) => {
  const t = await token(account);
  return {
    create: (body: unknown) => api.call('POST', '/v1/rooms', { token: t, body }),
    get: (roomId: string) => api.call('GET', `/v1/rooms/${roomId}`, { token: t }),
    join: (roomId: string) => api.call('POST', `/v1/rooms/${roomId}/join`, { token: t, body: {} }),
    leave: (roomId: string) => api.call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: t }),
    patch: (roomId: string, body: unknown, ifMatch?: string) =>
      api.call('PATCH', `/v1/rooms/${roomId}`, {
        token: t,
        body,
        ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
      }),
    patchMe: (roomId: string, body: unknown, ifMatch?: string) =>
      api.call('PATCH', `/v1/rooms/${roomId}/members/me`, {
        token: t,
        body,
        ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
      }),
  };
};

beforeAll(async () => {
  api = await startTestApi({
    CREATE_WAIT_S: '0.3',
    CREATE_RATE_LIMIT_PER_MINUTE: '1000',
    JOIN_RATE_LIMIT_PER_MINUTE: '1000',
  });
  configurePlatform({ spawner: () => new RecordingSpawner(), clock: shiftedClock(() => offsetMs) });
  admin = await api.platform.token('ops', ['admin']);
  await put('/v1/admin/games/arena/versions/1', { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600 });
  await template('open4', {
    gameId: 'arena',
    version: '1',
    constants: { maxMembers: 4, visibility: 'open', timeouts: { readyMs: 60_000 }, custom: { mode: 'duel' } },
  });
  await template('hidden', { gameId: 'arena', version: '1', constants: { maxMembers: 4, visibility: 'private' } });
  await template('shown', { gameId: 'arena', version: '1', constants: { maxMembers: 4, visibility: 'visible' } });
  await template('peers', {
    constants: { maxMembers: 4, visibility: 'open', timeouts: { reservedMs: 5_000, sessionEmptyMs: 10_000 } },
  });
}, 30_000);
afterAll(async () => {
  configurePlatform({ spawner: undefined, clock: undefined });
  await api.close();
});
beforeEach(() => {
  offsetMs = 0;
  spawned.length = 0;
});

describe('a dedicated room made from a template', () => {
  it('stores and shows template, constants, properties and the members, with the ETag of its change number', async () => {
    const alice = await as('alice');
    const created = await alice.create({ template: 'open4', properties: { custom: { round: 1 } } });
    expect(created.status).toBe(202);
    const { room } = created.body;
    expect(room).toMatchObject({
      template: 'open4',
      constants: {
        maxMembers: 4,
        visibility: 'open',
        timeouts: { reservedMs: 30_000, readyMs: 60_000, inactiveMs: null, sessionEmptyMs: null },
        custom: { mode: 'duel' },
      },
      properties: { joinability: 'open', custom: { round: 1 } },
      members: [{ account: 'alice', state: 'reserved', properties: { custom: {} } }],
    });
    expect(created.headers.get('etag')).toBe(`"${room.changeNumber}"`);

    const read = await (await as('bob')).get(room.roomId);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(`"${read.body.room.changeNumber}"`);
    // Open: anyone sees the members.
    expect(read.body.room.members).toEqual([{ account: 'alice', state: 'reserved', properties: { custom: {} } }]);
  });

  it('gives a room created the old way the default template, stored', async () => {
    const created = await (await as('alice')).create({ gameId: 'arena', version: '1' });
    expect(created.body.room).toMatchObject({
      template: null,
      constants: { maxMembers: 8, visibility: 'open', timeouts: { reservedMs: 30_000, sessionEmptyMs: null } },
      properties: { joinability: 'open', custom: {} },
    });
  });

  it('lets a member write properties (bumping the change number), refuses constants (403) and non-members (403)', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'open4' })).body;

    const patched = await alice.patch(room.roomId, { properties: { custom: { round: 2 } } });
    expect(patched.status).toBe(200);
    expect(patched.body.room.properties).toEqual({ joinability: 'open', custom: { round: 2 } });
    expect(patched.body.room.changeNumber).toBe(room.changeNumber + 1);
    expect(patched.headers.get('etag')).toBe(`"${room.changeNumber + 1}"`);

    const constants = await alice.patch(room.roomId, { constants: { maxMembers: 2 } });
    expect([constants.status, constants.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const stranger = await (await as('mallory')).patch(room.roomId, { properties: { custom: {} } });
    expect([stranger.status, stranger.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const strangerMe = await (await as('mallory')).patchMe(room.roomId, { state: 'ready' });
    expect([strangerMe.status, strangerMe.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('refuses every PATCH of a banned member with 403 BANNED, changing nothing', async () => {
    const alice = await as('alice');
    const banned = await as('banned-member');
    const { room } = (await alice.create({ template: 'open4' })).body;
    expect([200, 202]).toContain((await banned.join(room.roomId)).status);
    const placed = await api.call('POST', '/v1/admin/bans', { token: admin, body: { account: 'banned-member' } });
    expect(placed.status).toBe(201);

    const writes = [
      await banned.patch(room.roomId, { properties: { joinability: 'closed' } }),
      await banned.patchMe(room.roomId, { state: 'ready' }),
    ];
    expect(writes.map((w) => [w.status, w.body.error.code])).toEqual([
      [403, 'BANNED'],
      [403, 'BANNED'],
    ]);
    expect((await alice.get(room.roomId)).body.room.properties.joinability).toBe('open');
  });

  it('answers 412 for a stale If-Match and 400 for a malformed one', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'open4' })).body;
    const fresh = await alice.patch(room.roomId, { properties: { custom: { a: 1 } } }, `"${room.changeNumber}"`);
    expect(fresh.status).toBe(200);
    const stale = await alice.patch(room.roomId, { properties: { custom: { a: 2 } } }, `"${room.changeNumber}"`);
    expect([stale.status, stale.body.error.code]).toEqual([412, 'PRECONDITION_FAILED']);
    const staleMe = await alice.patchMe(room.roomId, { state: 'ready' }, `"${room.changeNumber}"`);
    expect(staleMe.status).toBe(412);
    const bad = await alice.patch(room.roomId, { properties: { custom: {} } }, 'W/"3"');
    expect([bad.status, bad.body.error.details.fields[0].field]).toEqual([400, 'header.if-match']);
    expect((await alice.get(room.roomId)).body.room.properties.custom).toEqual({ a: 1 });
  });

  it('of 50 parallel PATCHes with the same If-Match, exactly one wins; the others get 412', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'open4' })).body;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        alice.patch(room.roomId, { properties: { custom: { writer: i } } }, `"${room.changeNumber}"`),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(49);
    const winner = answers.find((a) => a.status === 200)?.body.room.properties.custom;
    const after = (await alice.get(room.roomId)).body.room;
    expect([after.changeNumber, after.properties.custom]).toEqual([room.changeNumber + 1, winner]);
  });

  it('without If-Match, parallel writes of different fields all land', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'open4' })).body;
    const answers = await Promise.all([
      alice.patch(room.roomId, { properties: { joinability: 'closed' } }),
      alice.patch(room.roomId, { properties: { custom: { x: 1 } } }),
      alice.patchMe(room.roomId, { properties: { custom: { colour: 'red' } } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const after = (await alice.get(room.roomId)).body.room;
    expect(after.properties).toEqual({ joinability: 'closed', custom: { x: 1 } });
    expect(after.members[0].properties.custom).toEqual({ colour: 'red' });
    expect(after.changeNumber).toBe(room.changeNumber + 3);
  });

  it('refuses joins once a member closes it or makes it invite-only (409 NOT_JOINABLE)', async () => {
    const alice = await as('alice');
    for (const joinability of ['closed', 'inviteOnly']) {
      const { room } = (await alice.create({ template: 'open4' })).body;
      expect((await alice.patch(room.roomId, { properties: { joinability } })).status).toBe(200);
      const join = await (await as('bob')).join(room.roomId);
      expect([join.status, join.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
    }
  });

  it('lets a member go reserved → ready but not make itself active (the game server does, with joined)', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'open4' })).body;
    const ready = await alice.patchMe(room.roomId, { state: 'ready' });
    expect(ready.status).toBe(200);
    expect(ready.body.room.members).toEqual([{ account: 'alice', state: 'ready', properties: { custom: {} } }]);
    const active = await alice.patchMe(room.roomId, { state: 'active' });
    expect([active.status, active.body.error.details.fields[0].field]).toEqual([400, 'body.state']);
    // readyMs 60 s: past it the member is gone from every answer and its slot is free.
    offsetMs = 61_000;
    const later = (await (await as('bob')).get(room.roomId)).body.room;
    expect([later.players, later.members]).toEqual([0, []]);
  });
});

describe('visibility', () => {
  it('private: 404 to non-members on read, NOT_JOINABLE on join, but the creator reads it', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'hidden' })).body;
    const read = await (await as('bob')).get(room.roomId);
    expect([read.status, read.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const join = await (await as('bob')).join(room.roomId);
    expect([join.status, join.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
    const own = await alice.get(room.roomId);
    expect([own.status, own.body.room.members.length]).toEqual([200, 1]);
  });

  it('visible: readable without members by non-members, NOT_JOINABLE on join', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'shown' })).body;
    const read = await (await as('bob')).get(room.roomId);
    expect(read.status).toBe(200);
    expect(read.body.room.members).toBeUndefined();
    expect(read.body.room.players).toBe(1);
    const join = await (await as('bob')).join(room.roomId);
    expect([join.status, join.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
    expect((await alice.get(room.roomId)).body.room.members).toHaveLength(1);
  });
});

describe('a peer-hosted session', () => {
  it('is created without a server; joins get reservations without host or ports; members set themselves active', async () => {
    const alice = await as('alice');
    const created = await alice.create({ template: 'peers' });
    expect(created.status).toBe(201);
    expect(spawned).toEqual([]);
    expect(created.body.room).toMatchObject({ state: 'ready', template: 'peers', players: 1 });
    expect(created.body.reservation).toEqual({ key: expect.any(String), expiresAt: expect.any(String) });
    const { roomId } = created.body.room;

    const bob = await as('bob');
    const joined = await bob.join(roomId);
    expect(joined.status).toBe(200);
    expect(Object.keys(joined.body.reservation).sort()).toEqual(['expiresAt', 'key']);
    // A join answers from its one write: no members (GET has them, one read).
    expect(joined.body.room.members).toBeUndefined();
    expect(joined.body.room.players).toBe(2);
    expect(joined.headers.get('etag')).toBe(`"${joined.body.room.changeNumber}"`);

    const active = await bob.patchMe(roomId, { state: 'active' });
    expect(active.status).toBe(200);
    expect(active.body.room.members).toContainEqual({ account: 'bob', state: 'active', properties: { custom: {} } });

    // reservedMs 5 s: alice never went active and is gone; bob stays.
    offsetMs = 6_000;
    const later = (await bob.get(roomId)).body.room;
    expect(later.members.map((m: { account: string }) => m.account)).toEqual(['bob']);
    expect(later.players).toBe(1);

    // bob leaves: the session is empty; sessionEmptyMs 10 s later it is over (404). A read
    // writes nothing: the first write that sees it over (or the sweeper) deletes it.
    expect((await bob.leave(roomId)).status).toBe(204);
    offsetMs = 6_000 + 9_000;
    expect((await bob.get(roomId)).status).toBe(200);
    offsetMs = 6_000 + 10_001;
    expect((await bob.get(roomId)).status).toBe(404);
    expect(await storedRoom(roomId)).toBeDefined();
    expect((await bob.patchMe(roomId, { state: 'active' })).status).toBe(404);
    expect(await storedRoom(roomId)).toBeUndefined();
    offsetMs = 0;
    expect((await bob.get(roomId)).status).toBe(404);
  });

  it('ends when its members all time out, and a later join does not revive it', async () => {
    const alice = await as('alice');
    const { room } = (await alice.create({ template: 'peers' })).body;
    // reservedMs 5 s, then sessionEmptyMs 10 s after that expiry.
    offsetMs = 16_000;
    const join = await (await as('bob')).join(room.roomId);
    expect([join.status, join.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await alice.get(room.roomId)).status).toBe(404);
  });
});
