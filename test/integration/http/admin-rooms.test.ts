import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { configurePlatform } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The operators' room and catalog routes over real HTTP on DynamoDB Local: the live rooms of
 * every game page by page (filtered after each read), an operator's close, an admin's read
 * of any room, and the configuration and template catalogs. The spawner records spawns and
 * stops and never starts a server, so rooms stay spawning unless a test makes one ready.
 */
let api: TestApi;
let admin: string;
const stopped: [string, string][] = [];

class RecordingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    return { taskId: `task:${request.roomId}`, host: '127.0.0.1', ports: [40001, 40002] };
  }
  async stop(taskId: string, reason: string) {
    stopped.push([taskId, reason]);
  }
}

async function put(path: string, body: unknown): Promise<void> {
  const response = await api.call('PUT', path, { token: admin, body });
  if (response.status !== 200) throw new Error(`PUT ${path}: ${JSON.stringify(response.body)}`);
}

/** Creates a room of `template` as `account`; its id. */
async function createRoom(account: string, template: string): Promise<string> {
  const created = await api.call('POST', '/v1/rooms', { token: await api.platform.token(account), body: { template } });
  if (created.status !== 202) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.room.roomId;
}

/** Creates a peer-hosted session of `template` as `account` (no server: it answers 201 at once); its id. */
async function createPeerSession(account: string, template: string): Promise<string> {
  const created = await api.call('POST', '/v1/rooms', { token: await api.platform.token(account), body: { template } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.room.roomId;
}

/** Every page of `GET /v1/admin/rooms?query`, and the pages' sizes. */
async function allPages(query: string): Promise<{ roomIds: string[]; sizes: number[]; rooms: any[] }> {
  const rooms: any[] = [];
  const sizes: number[] = [];
  let nextToken: string | undefined;
  do {
    const tokenPart = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const page = await api.call('GET', `/v1/admin/rooms?${query}${tokenPart}`, { token: admin });
    expect(page.status).toBe(200);
    rooms.push(...page.body.rooms);
    sizes.push(page.body.rooms.length);
    nextToken = page.body.nextToken;
  } while (nextToken);
  return { roomIds: rooms.map((room) => room.roomId).sort(), sizes, rooms };
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_WAIT_S: '0.2', CREATE_RATE_LIMIT_PER_MINUTE: '1000' });
  configurePlatform({ spawner: () => new RecordingSpawner() });
  admin = await api.platform.token('ops', ['admin']);
  for (const version of ['1', '2']) {
    await put(`/v1/admin/games/arena/versions/${version}`, { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600 });
  }
  await put('/v1/admin/games/brawl/versions/1', { binary: '/bin/true', maxPlayers: 4, spawnTimeoutS: 600 });
  const constants = (visibility: string) => ({ maxMembers: 4, visibility, timeouts: { reservedMs: 60_000 } });
  await put('/v1/admin/templates/duel', { gameId: 'arena', version: '1', constants: constants('open') });
  await put('/v1/admin/templates/secret', { gameId: 'arena', version: '2', constants: constants('private') });
  await put('/v1/admin/templates/melee', { gameId: 'brawl', version: '1', constants: constants('open') });
}, 30_000);
afterAll(async () => {
  configurePlatform({ spawner: undefined });
  await api.close();
});
beforeEach(() => {
  stopped.length = 0;
});

describe('GET /v1/admin/rooms', () => {
  it('pages the live rooms of every game, filtered by game, version, template and state, each once', async () => {
    const duels = await Promise.all(['a1', 'a2', 'a3', 'a4', 'a5'].map((account) => createRoom(account, 'duel')));
    const secret = await createRoom('s1', 'secret');
    const melee = await createRoom('m1', 'melee');
    const rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
    await rooms.markReady(duels[0]!, { initedBy: 'test', address: '127.0.0.1', now: new Date() });
    await rooms.markFailed(duels[1]!, 'crashed', new Date());

    const all = await allPages('limit=2');
    expect(all.roomIds).toEqual([...duels.slice(2), duels[0]!, secret, melee].sort());
    expect(Math.max(...all.sizes)).toBeLessThanOrEqual(2);
    expect((await allPages('gameId=arena&version=1')).roomIds).toEqual([duels[0]!, ...duels.slice(2)].sort());
    expect((await allPages('template=secret')).roomIds).toEqual([secret]);
    expect((await allPages('gameId=brawl&limit=1')).roomIds).toEqual([melee]);
    const ready = await allPages('state=ready');
    expect(ready.roomIds).toEqual([duels[0]]);
    // The room view, without members or server (a listing), as GET /v1/rooms shows it.
    expect(ready.rooms[0]).toMatchObject({ state: 'ready', template: 'duel', gameId: 'arena', version: '1' });
    expect(ready.rooms[0]).not.toHaveProperty('members');
  });

  it('refuses a forged nextToken (400 naming it), a bad filter (400), and a player token (403)', async () => {
    const forged = Buffer.from(JSON.stringify({ partition: 'SWEEPER' })).toString('base64url');
    const bad = await api.call('GET', `/v1/admin/rooms?nextToken=${forged}`, { token: admin });
    expect([bad.status, bad.body.error.details.fields[0].field]).toEqual([400, 'query.nextToken']);
    expect((await api.call('GET', '/v1/admin/rooms?state=failed', { token: admin })).status).toBe(400);
    expect((await api.call('GET', '/v1/admin/rooms?limit=101', { token: admin })).status).toBe(400);
    const player = await api.call('GET', '/v1/admin/rooms', { token: await api.platform.token('a1') });
    expect([player.status, player.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('POST /v1/admin/rooms/{roomId}/close', () => {
  it('closes a live room, stops its server, ends its reservations and drops it from the listing', async () => {
    const roomId = await createRoom('c1', 'duel');
    const close = await api.call('POST', `/v1/admin/rooms/${roomId}/close`, { token: admin });
    expect(close.status).toBe(200);
    expect(close.body.room).toMatchObject({ roomId, state: 'closed', failureReason: 'closed-by-admin' });
    expect(close.headers.get('etag')).toBe(`"${close.body.room.changeNumber}"`);
    expect(stopped).toEqual([[`task:${roomId}`, 'closed-by-admin']]);
    expect((await allPages('gameId=arena')).roomIds).not.toContain(roomId);
    const join = await api.call('POST', `/v1/rooms/${roomId}/join`, {
      token: await api.platform.token('c2'),
      body: {},
    });
    expect([join.status, join.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
    const again = await api.call('POST', `/v1/admin/rooms/${roomId}/close`, { token: admin });
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT']);
  });

  it('answers two operators closing at once 200 and 409, never 500; 404 for no such room; 403 for a player', async () => {
    const roomId = await createRoom('c3', 'duel');
    const both = await Promise.all(
      [1, 2].map(() => api.call('POST', `/v1/admin/rooms/${roomId}/close`, { token: admin })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(stopped).toHaveLength(1);
    expect((await api.call('POST', '/v1/admin/rooms/no-such-room/close', { token: admin })).status).toBe(404);
    const player = await api.call('POST', `/v1/admin/rooms/${roomId}/close`, { token: await api.platform.token('c3') });
    expect(player.status).toBe(403);
  });
});

describe("an admin's GET /v1/rooms/{roomId}", () => {
  it("reads a private room with its members' expiries and the server's ports; a player who is no member gets 404", async () => {
    const roomId = await createRoom('p1', 'secret');
    const read = await api.call('GET', `/v1/rooms/${roomId}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.room.members).toEqual([{ account: 'p1', state: 'reserved', properties: { custom: {} } }]);
    expect(read.body.room.server).toEqual({ host: '127.0.0.1', ports: [40001, 40002] });
    const rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
    const protocol = { h: 'a1b2c3d4e5f60718', b: '2026-11-01T00:00:00.000Z' };
    await rooms.markReady(roomId, { initedBy: 'test', address: '127.0.0.1', protocol, now: new Date() });
    const ready = await api.call('GET', `/v1/rooms/${roomId}`, { token: admin });
    expect(ready.body.room.members[0].expiresAt).toEqual(expect.any(String));
    // The build its server reported, for the console's build table: in the read and in the listing.
    const build = { hash: protocol.h, builtAt: protocol.b };
    expect(ready.body.room.protocol).toEqual(build);
    const listed = (await allPages('gameId=arena&version=2')).rooms.find((room) => room.roomId === roomId);
    expect(listed.protocol).toEqual(build);
    const player = await api.call('GET', `/v1/rooms/${roomId}`, { token: await api.platform.token('p1') });
    expect(player.body.room.protocol).toBeUndefined();
    expect((await api.call('GET', `/v1/rooms/${roomId}`, { token: await api.platform.token('p2') })).status).toBe(404);
  });
});

describe('DELETE /v1/rooms/{roomId}/members/{account} by an admin', () => {
  it('removes any member without X-Host-Epoch; a player without it is refused; a second removal is 404', async () => {
    const roomId = await createRoom('r1', 'duel');
    const join = await api.call('POST', `/v1/rooms/${roomId}/join`, {
      token: await api.platform.token('r2'),
      body: {},
    });
    // The room is still spawning (this spawner never starts a server): a join holds its slot and answers 202.
    expect(join.status).toBe(202);
    const player = await api.call('DELETE', `/v1/rooms/${roomId}/members/r2`, {
      token: await api.platform.token('r1'),
    });
    expect(player.status).toBe(400);
    const removed = await api.call('DELETE', `/v1/rooms/${roomId}/members/r2`, { token: admin });
    expect(removed.status).toBe(200);
    expect(removed.body.room.members.map((m: { account: string }) => m.account)).toEqual(['r1']);
    const read = await api.call('GET', `/v1/rooms/${roomId}`, { token: admin });
    expect(read.body.room.members.map((m: { account: string }) => m.account)).toEqual(['r1']);
    const again = await api.call('DELETE', `/v1/rooms/${roomId}/members/r2`, { token: admin });
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers 204 when removing the last member ends a peer-hosted session', async () => {
    const constants = { maxMembers: 4, visibility: 'open', timeouts: { reservedMs: 60_000, sessionEmptyMs: 0 } };
    await put('/v1/admin/templates/lobby', { constants });
    const roomId = await createPeerSession('r3', 'lobby');
    const removed = await api.call('DELETE', `/v1/rooms/${roomId}/members/r3`, { token: admin });
    expect(removed.status).toBe(204);
    expect((await api.call('GET', `/v1/rooms/${roomId}`, { token: admin })).status).toBe(404);
    expect((await api.call('DELETE', '/v1/admin/templates/lobby', { token: admin })).status).toBe(204);
  });
});

describe('the catalogs', () => {
  it('list every configuration in game and version order, page by page, and forget a deleted one', async () => {
    const first = await api.call('GET', '/v1/admin/games?limit=2', { token: admin });
    expect(first.status).toBe(200);
    const rest = await api.call('GET', `/v1/admin/games?limit=2&nextToken=${first.body.nextToken}`, { token: admin });
    const listed = [...first.body.configurations, ...rest.body.configurations];
    expect(listed.map((c: any) => `${c.gameId}/${c.version}`)).toEqual(['arena/1', 'arena/2', 'brawl/1']);
    const one = await api.call('GET', '/v1/admin/games/arena/versions/2', { token: admin });
    expect(listed[1]).toEqual(one.body.configuration);
    await put('/v1/admin/games/gone/versions/1', { binary: '/bin/true', maxPlayers: 2 });
    expect((await api.call('DELETE', '/v1/admin/games/gone/versions/1', { token: admin })).status).toBe(204);
    const after = await api.call('GET', '/v1/admin/games', { token: admin });
    expect(after.body.configurations.map((c: any) => c.gameId)).not.toContain('gone');
  });

  it('list every template in name order, as GET of each shows it', async () => {
    const listed = await api.call('GET', '/v1/admin/templates', { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.templates.map((t: any) => t.name)).toEqual(['duel', 'melee', 'secret']);
    const duel = await api.call('GET', '/v1/admin/templates/duel', { token: admin });
    expect(listed.body.templates[0]).toEqual(duel.body.template);
    expect(listed.body).not.toHaveProperty('nextToken');
    const forged = await api.call('GET', '/v1/admin/templates?nextToken=e30', { token: admin });
    expect(forged.status).toBe(400);
  });
});
