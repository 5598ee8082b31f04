import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { routes } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';
import { httpHandlers } from '../../../local/http-handlers';
import { aRoom } from '../../helpers/factories';
import { jsonClient } from '../../helpers/http';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Slots under real concurrency: hundreds of parallel HTTP joins through the gateway, the
 * handlers and DynamoDB Local's transactions. Exact counts only.
 */
let platform: TestPlatform;
let gateway: LocalApiGateway;
let call: ReturnType<typeof jsonClient>;
let rooms: RoomStore;
let members: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = await startApiGateway({ routes, handlers: httpHandlers, port: 0 });
  call = jsonClient(gateway.url);
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  members = dynamoRoomStore(platform.db, platform.tableName);
});
afterAll(async () => {
  await gateway.close();
  await platform.close();
});

const tokens = new Map<string, string>();
async function tokenFor(account: string): Promise<string> {
  let token = tokens.get(account);
  if (!token) tokens.set(account, (token = await platform.token(account)));
  return token;
}

async function readyRoom(maxPlayers: number, overrides: Parameters<typeof aRoom>[0] = {}) {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers,
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
    ...overrides,
  });
  await rooms.createWithMember(room);
  return room;
}

const join = async (roomId: string, account: string) =>
  call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenFor(account) });

function tally(statuses: number[]): Record<number, number> {
  return statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
}

describe('POST /v1/rooms/{roomId}/join', () => {
  it('lets exactly 7 of 200 racers into 7 free slots; the rest get 409 ROOM_FULL', async () => {
    const room = await readyRoom(7);
    const accounts = Array.from({ length: 200 }, (_, i) => `racer-${i}`);
    await Promise.all(accounts.map(tokenFor));
    const responses = await Promise.all(accounts.map((a) => join(room.roomId, a)));
    const counts = tally(responses.map((r) => r.status));
    process.stdout.write(`200 racers for 7 slots: ${JSON.stringify(counts)} (expected {"200":7,"409":193})\n`);
    expect(counts).toEqual({ 200: 7, 409: 193 });
    expect(responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'ROOM_FULL')).toBe(true);
    expect((await rooms.get(room.roomId)).players).toBe(7);
    expect(await members.listMembers(room.roomId)).toHaveLength(7);
  });

  it('never over-fills: 500 joins spread over 20 rooms of 8, counts equal member items', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => readyRoom(8)));
    const attempts = Array.from({ length: 500 }, (_, i) => ({ room: all[i % 20]!.roomId, account: `spread-${i}` }));
    await Promise.all(attempts.map((a) => tokenFor(a.account)));
    const responses = await Promise.all(attempts.map((a) => join(a.room, a.account)));
    const counts = tally(responses.map((r) => r.status));
    process.stdout.write(`500 joins over 20 rooms of 8: ${JSON.stringify(counts)} (expected {"200":160,"409":340})\n`);
    expect(counts).toEqual({ 200: 160, 409: 340 });
    for (const room of all) {
      const stored = await rooms.get(room.roomId);
      expect([stored.players, (await members.listMembers(room.roomId)).length]).toEqual([8, 8]);
    }
  });

  it('gives a player who joins again the same slot with a fresh key, not a second slot', async () => {
    const room = await readyRoom(4);
    const first = await join(room.roomId, 'again');
    const second = await join(room.roomId, 'again');
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.reservation.key).not.toBe(first.body.reservation.key);
    expect(second.body.reservation.expiresAt).toBe(first.body.reservation.expiresAt);
    expect((await rooms.get(room.roomId)).players).toBe(1);
  });

  it('frees expired reservations lazily: no sweeper, no TTL, the next join gets the slot', async () => {
    const room = await readyRoom(2, { reservationTimeoutS: 1 });
    expect((await join(room.roomId, 'early-1')).status).toBe(200);
    expect((await join(room.roomId, 'early-2')).status).toBe(200);
    expect((await join(room.roomId, 'late-0')).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const view = await call('GET', `/v1/rooms/${room.roomId}`, { token: await tokenFor('late-1') });
    expect(view.body.room.players).toBe(0);
    const responses = await Promise.all(['late-1', 'late-2', 'late-3'].map((a) => join(room.roomId, a)));
    expect(tally(responses.map((r) => r.status))).toEqual({ 200: 2, 409: 1 });
    expect((await rooms.get(room.roomId)).players).toBe(2);
  });

  it.each([
    ['failed', 'NOT_JOINABLE'],
    ['closed', 'NOT_JOINABLE'],
  ] as const)('refuses a %s room with 409 %s', async (state, code) => {
    const room = await readyRoom(4, { state });
    const response = await join(room.roomId, 'late');
    expect([response.status, response.body.error.code]).toEqual([409, code]);
  });

  it('answers 404 for an unknown room and 400 for an unknown body field', async () => {
    expect((await join('no-such-room', 'x')).status).toBe(404);
    const room = await readyRoom(4);
    const bad = await call('POST', `/v1/rooms/${room.roomId}/join`, {
      token: await tokenFor('x'),
      body: { players: 3 },
    });
    expect([bad.status, bad.body.error.details.fields[0].field]).toEqual([400, 'body.players']);
  });
});

describe('DELETE /v1/rooms/{roomId}/members/me', () => {
  it("frees the caller's slot at once, and only the caller's", async () => {
    const room = await readyRoom(1);
    expect((await join(room.roomId, 'alice')).status).toBe(200);
    expect((await join(room.roomId, 'bob')).status).toBe(409);
    // Bob cannot free Alice's slot: the route only ever touches the caller's own.
    expect((await call('DELETE', `/v1/rooms/${room.roomId}/members/me`, { token: await tokenFor('bob') })).status).toBe(
      404,
    );
    expect((await rooms.get(room.roomId)).players).toBe(1);
    expect(
      (await call('DELETE', `/v1/rooms/${room.roomId}/members/me`, { token: await tokenFor('alice') })).status,
    ).toBe(204);
    expect((await join(room.roomId, 'bob')).status).toBe(200);
  });

  it('never shows a key or token in the room view', async () => {
    const room = await readyRoom(2);
    const joined = await join(room.roomId, 'carol');
    const view = await call('GET', `/v1/rooms/${room.roomId}`, { token: await tokenFor('dave') });
    expect(JSON.stringify(view.body)).not.toContain(joined.body.reservation.key);
    expect(Object.keys(view.body.room).sort()).toEqual(
      [
        'changeNumber',
        'gameId',
        'maxPlayers',
        'players',
        'region',
        'roomId',
        'settings',
        'state',
        'version',
        // The session document (docs/api.md): no key or token in any of it.
        'template',
        'constants',
        'properties',
        'members',
      ].sort(),
    );
  });
});

describe('GET /v1/rooms', () => {
  it('lists open rooms of a game version page by page, leaving out full and dead ones', async () => {
    const version = `list-${Date.now()}`;
    const open = await Promise.all([0, 1, 2].map(() => readyRoom(2, { version, region: 'eu-test' })));
    await readyRoom(2, { version, region: 'eu-test', players: 2 });
    const failedRoom = await readyRoom(2, { version, region: 'eu-test' });
    await rooms.markFailed(failedRoom.roomId, 'crashed', new Date());
    const token = await tokenFor('lister');
    const seen: string[] = [];
    let nextToken: string | undefined;
    do {
      const query = `gameId=sample&version=${version}&region=eu-test&limit=2${nextToken ? `&nextToken=${nextToken}` : ''}`;
      const page = await call('GET', `/v1/rooms?${query}`, { token });
      expect(page.status).toBe(200);
      seen.push(...page.body.rooms.map((r: { roomId: string }) => r.roomId));
      nextToken = page.body.nextToken;
    } while (nextToken);
    expect(seen.sort()).toEqual(open.map((r) => r.roomId).sort());
  });

  it('shows each room as GET shows it, without members, after joins and property writes', async () => {
    const version = `listed-${Date.now()}`;
    const room = await readyRoom(4, {
      version,
      region: 'eu-test',
      constants: {
        maxMembers: 4,
        visibility: 'open',
        timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
        custom: { mode: 'duel' },
      },
    });
    expect((await join(room.roomId, 'listed-a')).status).toBe(200);
    const patched = await call('PATCH', `/v1/rooms/${room.roomId}`, {
      token: await tokenFor('listed-a'),
      body: { properties: { custom: { round: 2 } } },
    });
    expect(patched.status).toBe(200);
    const read = await call('GET', `/v1/rooms/${room.roomId}`, { token: await tokenFor('listed-a') });
    // Members, and where the server takes them (issue 10, point 1), are for the room's members only.
    const { members, server, ...withoutMembers } = read.body.room;
    expect(members).toHaveLength(1);
    expect(server).toEqual({ host: '127.0.0.1', ports: [38999] });
    const listed = await call('GET', `/v1/rooms?gameId=${room.gameId}&version=${version}&region=eu-test`, {
      token: await tokenFor('lister'),
    });
    expect(listed.body.rooms).toEqual([withoutMembers]);
  });

  it.each([
    'garbage',
    Buffer.from('{"pk":"ROOM#x","sk":"ROOM","gsi2pk":"LIVE#other#1#x","gsi2sk":"a"}').toString('base64url'),
  ])('refuses a page token it did not issue (%s) with 400', async (nextToken) => {
    const response = await call('GET', `/v1/rooms?gameId=sample&version=1&nextToken=${nextToken}`, {
      token: await tokenFor('x'),
    });
    expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
  });

  it('demands gameId and version', async () => {
    const response = await call('GET', '/v1/rooms', { token: await tokenFor('x') });
    expect(response.status).toBe(400);
  });
});

describe('abuse on the join route', () => {
  it('lets one account join 20 times a minute and answers the rest 429 RATE_LIMITED with Retry-After', async () => {
    const room = await readyRoom(50);
    const responses = await Promise.all(Array.from({ length: 30 }, () => join(room.roomId, 'spammer')));
    expect(tally(responses.map((r) => r.status))).toEqual({ 200: 20, 429: 10 });
    const limited = responses.find((r) => r.status === 429);
    expect(limited?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Still one slot: repeated joins of one account never take a second one.
    expect((await rooms.get(room.roomId)).players).toBe(1);
    expect((await join(room.roomId, 'bystander')).status).toBe(200);
  });

  it('refuses a banned account with 403 BANNED', async () => {
    const admin = await platform.token('ops', ['admin']);
    expect((await call('POST', '/v1/admin/bans', { token: admin, body: { account: 'cheater' } })).status).toBe(201);
    const room = await readyRoom(4);
    const response = await join(room.roomId, 'cheater');
    expect([response.status, response.body.error.code]).toEqual([403, 'BANNED']);
    expect((await rooms.get(room.roomId)).players).toBe(0);
  });
});
