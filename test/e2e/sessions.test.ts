import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Session documents on the local cloud (docs/api.md "Session documents"): a dedicated room made
 * from a template with a real game server, and a peer-hosted session with no server at all.
 */
let test: TestCloud;
let call: ReturnType<typeof jsonClient>;

const tokenFor = async (account: string, scopes?: string[]) =>
  (await call('POST', '/v1/dev/tokens', { body: { account, ...(scopes ? { scopes } : {}) } })).body
    .access_token as string;

beforeAll(async () => {
  test = await startTestCloud([
    {
      gameId: 'duel',
      version: '1',
      configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 4, spawnTimeoutS: 60 },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
  const admin = await tokenFor('ops', ['admin']);
  const templates: Record<string, unknown> = {
    arena: { gameId: 'duel', version: '1', constants: { maxMembers: 4, visibility: 'open', custom: { mode: 'duel' } } },
    secret: { gameId: 'duel', version: '1', constants: { maxMembers: 4, visibility: 'private' } },
    lobby: {
      constants: { maxMembers: 4, visibility: 'open', timeouts: { reservedMs: 400, sessionEmptyMs: 400 } },
    },
  };
  for (const [name, body] of Object.entries(templates)) {
    const put = await call('PUT', `/v1/admin/templates/${name}`, { token: admin, body });
    expect(put.status).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('serves a dedicated room made from a template: create, join, GET with ETag, PATCH, If-Match, constants, member state', async () => {
  const [alice, bob, eve] = await Promise.all([tokenFor('s-alice'), tokenFor('s-bob'), tokenFor('s-eve')]);
  const created = await call('POST', '/v1/rooms', { token: alice, body: { template: 'arena' } });
  expect(created.status).toBe(201);
  expect(created.body.reservation).toMatchObject({ host: expect.any(String), ports: [expect.any(Number)] });
  const { roomId } = created.body.room;
  expect(created.body.room).toMatchObject({
    state: 'ready',
    template: 'arena',
    constants: { custom: { mode: 'duel' } },
  });

  const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: bob, body: {} });
  expect(joined.status).toBe(200);
  // The join answers from its one write (no members); GET has them, for anyone: visibility open.
  expect([joined.body.room.members, joined.body.room.players]).toEqual([undefined, 2]);

  const read = await call('GET', `/v1/rooms/${roomId}`, { token: eve });
  expect(read.body.room.members.map((m: { account: string }) => m.account)).toEqual(['s-alice', 's-bob']);
  const etag = read.headers.get('etag');
  expect(etag).toBe(`"${read.body.room.changeNumber}"`);

  const patched = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: bob,
    body: { properties: { custom: { round: 1 } } },
    headers: { 'if-match': etag ?? '' },
  });
  expect([patched.status, patched.body.room.properties.custom]).toEqual([200, { round: 1 }]);
  const stale = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: alice,
    body: { properties: { custom: { round: 2 } } },
    headers: { 'if-match': etag ?? '' },
  });
  expect([stale.status, stale.body.error.code]).toEqual([412, 'PRECONDITION_FAILED']);
  const constants = await call('PATCH', `/v1/rooms/${roomId}`, { token: alice, body: { constants: { custom: {} } } });
  expect([constants.status, constants.body.error.code]).toEqual([403, 'FORBIDDEN']);
  const stranger = await call('PATCH', `/v1/rooms/${roomId}`, { token: eve, body: { properties: { custom: {} } } });
  expect(stranger.status).toBe(403);

  const ready = await call('PATCH', `/v1/rooms/${roomId}/members/me`, { token: bob, body: { state: 'ready' } });
  expect(ready.body.room.members).toContainEqual({ account: 's-bob', state: 'ready', properties: { custom: {} } });
  const active = await call('PATCH', `/v1/rooms/${roomId}/members/me`, { token: bob, body: { state: 'active' } });
  expect([active.status, active.body.error.details.fields[0].field]).toEqual([400, 'body.state']);
}, 60_000);

it('hides a private room from non-members (404) and refuses their joins (409 NOT_JOINABLE)', async () => {
  const [alice, bob] = await Promise.all([tokenFor('p-alice'), tokenFor('p-bob')]);
  const created = await call('POST', '/v1/rooms', { token: alice, body: { template: 'secret' } });
  expect(created.status).toBe(201);
  const { roomId } = created.body.room;
  expect((await call('GET', `/v1/rooms/${roomId}`, { token: bob })).status).toBe(404);
  const join = await call('POST', `/v1/rooms/${roomId}/join`, { token: bob, body: {} });
  expect([join.status, join.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
  expect((await call('GET', `/v1/rooms/${roomId}`, { token: alice })).status).toBe(200);
}, 60_000);

it('runs a peer-hosted session: no server, reservations without host, members set themselves active, timeouts end it', async () => {
  const [alice, bob] = await Promise.all([tokenFor('ph-alice'), tokenFor('ph-bob')]);
  const servers = test.cloud.fleet.pids.length;
  const created = await call('POST', '/v1/rooms', { token: alice, body: { template: 'lobby' } });
  expect(created.status).toBe(201);
  expect(Object.keys(created.body.reservation).sort()).toEqual(['expiresAt', 'key']);
  const { roomId } = created.body.room;
  const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: bob, body: {} });
  expect([joined.status, Object.keys(joined.body.reservation).sort()]).toEqual([200, ['expiresAt', 'key']]);
  const active = await call('PATCH', `/v1/rooms/${roomId}/members/me`, { token: bob, body: { state: 'active' } });
  expect(active.status).toBe(200);
  expect(test.cloud.fleet.pids.length).toBe(servers);

  // reservedMs 400: alice never went active and is removed; bob stays.
  await eventually(async () => {
    const room = (await call('GET', `/v1/rooms/${roomId}`, { token: bob })).body.room;
    return room.members.length === 1 && room.members[0].account === 'ph-bob';
  });
  // bob leaves; sessionEmptyMs 400 later the session is gone.
  expect((await call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: bob })).status).toBe(204);
  await eventually(async () => (await call('GET', `/v1/rooms/${roomId}`, { token: bob })).status === 404);
}, 60_000);
