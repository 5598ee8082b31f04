import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Find-or-create on the local cloud with real game servers: a stampede must pack rooms
 * densely (one server per 8 players, not one per player) and never over-fill one.
 */
let test: TestCloud;
let call: ReturnType<typeof jsonClient>;

beforeAll(async () => {
  test = await startTestCloud([
    {
      gameId: 'pack',
      version: '1',
      configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 8, spawnTimeoutS: 60 },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

const tokenFor = async (account: string) =>
  (await call('POST', '/v1/dev/tokens', { body: { account } })).body.access_token as string;

it('packs 80 simultaneous find-or-create calls into about 10 rooms of 8, never over-filling one', async () => {
  const tokens = await Promise.all(Array.from({ length: 80 }, (_, i) => tokenFor(`mm-${i}`)));
  const started = Date.now();
  const responses = await Promise.all(
    tokens.map((token) =>
      call('POST', '/v1/matchmaking/join', {
        token,
        body: { gameId: 'pack', version: '1', criteria: { mode: 'duel' } },
      }),
    ),
  );
  const rooms = new Map<string, number>();
  for (const r of responses) rooms.set(r.body.room?.roomId, (rooms.get(r.body.room?.roomId) ?? 0) + 1);
  process.stdout.write(
    `80 find-or-create in ${Date.now() - started} ms: ${rooms.size} rooms created (expected 10, at most 11); sizes ${JSON.stringify([...rooms.values()])}\n`,
  );
  expect(responses.filter((r) => r.status !== 200 && r.status !== 202).map((r) => r.body)).toEqual([]);
  expect(responses.every((r) => typeof r.body.reservation?.key === 'string')).toBe(true);
  expect(rooms.size).toBeGreaterThanOrEqual(10);
  expect(rooms.size).toBeLessThanOrEqual(11);
  for (const [roomId, count] of rooms) {
    expect(count).toBeLessThanOrEqual(8);
    const view = await call('GET', `/v1/rooms/${roomId}`, { token: tokens[0] });
    expect(view.body.room.players).toBe(count);
    expect(view.body.room.settings).toMatchObject({ mode: 'duel' });
  }
}, 120_000);

it('puts players with other criteria into other rooms', async () => {
  const [a, b] = await Promise.all([tokenFor('crit-a'), tokenFor('crit-b')]);
  const first = await call('POST', '/v1/matchmaking/join', {
    token: a,
    body: { gameId: 'pack', version: '1', criteria: { mode: 'ffa' } },
  });
  const second = await call('POST', '/v1/matchmaking/join', {
    token: b,
    body: { gameId: 'pack', version: '1', criteria: { mode: 'ctf' } },
  });
  expect(first.body.room.roomId).not.toBe(second.body.room.roomId);
  const third = await call('POST', '/v1/matchmaking/join', {
    token: await tokenFor('crit-c'),
    body: { gameId: 'pack', version: '1', criteria: { mode: 'ffa' } },
  });
  expect(third.body.room.roomId).toBe(first.body.room.roomId);
}, 60_000);

it('seats a party whole: a new room when the filling one has too few slots, else the fullest that fits', async () => {
  const join = async (account: string, party?: string[]) =>
    call('POST', '/v1/matchmaking/join', {
      token: await tokenFor(account),
      body: { gameId: 'pack', version: '1', criteria: { mode: 'squad' }, ...(party ? { party } : {}) },
    });
  const partyToken = async (account: string, leader: string) =>
    (await call('POST', '/v1/me/party-tokens', { token: await tokenFor(account), body: { leader } })).body
      .partyToken as string;
  const first = (await join('sq-0')).body.room.roomId as string;
  for (let i = 1; i < 6; i++) expect((await join(`sq-${i}`)).body.room.roomId).toBe(first);
  // 2 slots left: a party of 3 gets a room of its own, every member reserved by the create.
  const three = await join('sq-lead', [await partyToken('sq-bob', 'sq-lead'), await tokenFor('sq-carol')]);
  expect([200, 202]).toContain(three.status);
  expect(three.body.room.roomId).not.toBe(first);
  expect(three.body.reservations.map((r: { account: string }) => r.account)).toEqual(['sq-lead', 'sq-bob', 'sq-carol']);
  // A party of 2 fits both: it fills the fuller one.
  const two = await join('sq-duo', [await partyToken('sq-pal', 'sq-duo')]);
  expect(two.body.room.roomId).toBe(first);
  const token = await tokenFor('sq-0');
  expect((await call('GET', `/v1/rooms/${first}`, { token })).body.room.players).toBe(8);
  expect((await call('GET', `/v1/rooms/${three.body.room.roomId}`, { token })).body.room.players).toBe(3);
}, 90_000);
