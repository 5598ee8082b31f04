import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../core/infra/keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Issue 8, point 9: shapes that `JSON.parse` accepts but DynamoDB cannot store exactly, and
 * malformed paths and page tokens. Each is a 400 BAD_REQUEST naming the field over real
 * HTTP, never a 500, and nothing is stored.
 */
let api: TestApi;
let player: string;
let admin: string;

beforeAll(async () => {
  api = await startTestApi();
  player = await api.platform.token('alice');
  admin = await api.platform.token('ops', ['admin']);
});

type Caller = 'player' | 'admin' | 'nobody';
const tokenOf = (caller: Caller) => ({ player, admin, nobody: undefined })[caller];
afterAll(() => api.close());

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** JSON texts for one object-valued field: each cannot be stored exactly; `at` is where the 400 points. */
const badObjects: [name: string, json: string, at: string][] = [
  ['an integer beyond 2^53', '{"big":9007199254740993}', '.big'],
  ['a negative integer beyond 2^53', '{"n":{"m":-18014398509481984}}', '.n.m'],
  ['a number below 1e-300', '{"tiny":1e-301}', '.tiny'],
  ['a number below DynamoDB’s range', '{"tiny":[1e-131]}', '.tiny.0'],
  ['nesting deeper than 32', nested(40), `${'.a'.repeat(31)}`],
  ['nesting of exactly 32 levels (DynamoDB refuses the item)', nested(32), `${'.a'.repeat(31)}`],
  ['an empty key', '{"":1}', ''],
  ['an empty key, nested', '{"a":{"":1}}', '.a'],
  ['a nested __proto__', '{"a":{"__proto__":{"admin":true}}}', '.a.__proto__'],
  ['a top-level __proto__', '{"__proto__":{"admin":true}}', '.__proto__'],
  ['a constructor key', '{"constructor":{"prototype":1}}', ''],
];

async function expectBadRequest(response: Awaited<ReturnType<TestApi['call']>>, field: string): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.body.error.code).toBe('BAD_REQUEST');
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.details.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

describe('object fields that cannot be stored exactly → 400 naming the field', () => {
  it.each(badObjects)('POST /v1/rooms settings with %s', async (_name, json, at) => {
    const response = await api.call('POST', '/v1/rooms', {
      token: player,
      rawBody: `{"gameId":"arena","version":"1","settings":${json}}`,
    });
    await expectBadRequest(response, `body.settings${at}`);
  });

  it.each(badObjects)('POST /v1/matchmaking/join criteria with %s', async (_name, json, at) => {
    const response = await api.call('POST', '/v1/matchmaking/join', {
      token: player,
      rawBody: `{"gameId":"arena","version":"1","criteria":${json}}`,
    });
    await expectBadRequest(response, `body.criteria${at}`);
  });

  it.each(badObjects)('POST /v1/matchmaking/join settings with %s', async (_name, json, at) => {
    const response = await api.call('POST', '/v1/matchmaking/join', {
      token: player,
      rawBody: `{"gameId":"arena","version":"1","settings":${json}}`,
    });
    await expectBadRequest(response, `body.settings${at}`);
  });

  it.each(badObjects)(
    'PUT a configuration with serverSettings holding %s, and nothing is stored',
    async (_n, json, at) => {
      const response = await api.call('PUT', '/v1/admin/games/arena/versions/bad', {
        token: admin,
        rawBody: `{"binary":"/bin/true","maxPlayers":4,"serverSettings":${json}}`,
      });
      await expectBadRequest(response, `body.serverSettings${at}`);
      const { Item } = await api.platform.db.send(
        new GetCommand({ TableName: api.platform.tableName, Key: keys.gameConfiguration('arena', 'bad') }),
      );
      expect(Item).toBeUndefined();
    },
  );

  it('accepts and stores exactly what can be stored: 2^53 − 1, 1e-130, 31 levels, unicode keys', async () => {
    const serverSettings = { max: Number.MAX_SAFE_INTEGER, min: 1e-130, deep: JSON.parse(nested(30)), ключ: -0.5 };
    const put = await api.call('PUT', '/v1/admin/games/arena/versions/edge', {
      token: admin,
      body: { binary: '/bin/true', maxPlayers: 4, serverSettings },
    });
    expect(put.status).toBe(200);
    const got = await api.call('GET', '/v1/admin/games/arena/versions/edge', { token: admin });
    expect(got.body.configuration.serverSettings).toEqual(serverSettings);
  });
});

describe('room settings that would not fit a game server task → 400 on body.settings (issue 10, point 7)', () => {
  // Under the schema's 4 KB, but 2,800+ characters once encoded into RunTask's overrides.
  const quoteHeavy = { s: '"'.repeat(1_400) };

  it('POST /v1/rooms', async () => {
    const put = await api.call('PUT', '/v1/admin/games/arena/versions/tight', {
      token: admin,
      body: { binary: '/bin/true', maxPlayers: 4 },
    });
    expect(put.status).toBe(200);
    const response = await api.call('POST', '/v1/rooms', {
      token: player,
      body: { gameId: 'arena', version: 'tight', settings: quoteHeavy },
    });
    await expectBadRequest(response, 'body.settings');
  });

  it('PUT of a configuration that would not fit its tasks: 400 on body.env', async () => {
    const response = await api.call('PUT', '/v1/admin/games/arena/versions/huge', {
      token: admin,
      body: { binary: '/bin/true', maxPlayers: 4, env: { BLOB: 'x'.repeat(2_000) } },
    });
    await expectBadRequest(response, 'body.env');
  });

  it('POST /v1/matchmaking/join: settings and criteria that fit alone but not merged', async () => {
    const response = await api.call('POST', '/v1/matchmaking/join', {
      token: player,
      body: { gameId: 'arena', version: '1', settings: { a: 'x'.repeat(1_300) }, criteria: { b: 'y'.repeat(1_300) } },
    });
    await expectBadRequest(response, 'body.settings');
  });
});

describe('JSON bodies with odd shapes anywhere → 4xx, never 500', () => {
  const deepArray = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  it.each<[string, string, Caller]>([
    ['POST', '/v1/rooms', 'player'],
    ['POST', '/v1/matchmaking/join', 'player'],
    ['POST', '/v1/rooms/some-room/join', 'player'],
    ['PUT', '/v1/admin/games/arena/versions/1', 'admin'],
    ['POST', '/v1/admin/bans', 'admin'],
    ['POST', '/v1/dev/tokens', 'nobody'],
  ])('%s %s: top-level __proto__, deep nesting, __proto__ in env', async (method, path, caller) => {
    const token = tokenOf(caller);
    for (const rawBody of [
      '{"__proto__":{"admin":true}}',
      '{"__proto__":null,"gameId":"arena","version":"1"}',
      deepArray,
      `{"account":${deepArray}}`,
      '{"binary":"/bin/true","maxPlayers":4,"env":{"__proto__":"x"}}',
      '{"binary":"/bin/true","maxPlayers":4,"env":{"__proto__":{"A":"1"}}}',
      '{"account":"mallory","__proto__":{"expiresAt":"2000-01-01T00:00:00Z"}}',
    ]) {
      const response = await api.call(method, path, { token, rawBody });
      expect([rawBody.slice(0, 40), response.status]).toEqual([rawBody.slice(0, 40), 400]);
      expect(response.body.error.code).toBe('BAD_REQUEST');
    }
  });

  it('keeps a top-level __proto__ in a ban body from reaching the store', async () => {
    const response = await api.call('POST', '/v1/admin/bans', {
      token: admin,
      rawBody: '{"account":"mallory","__proto__":{"reason":"x"}}',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.fields).toEqual([expect.objectContaining({ field: 'body.__proto__' })]);
  });
});

describe('page tokens → 400 naming nextToken', () => {
  it('still pages through rooms with the tokens it issues', async () => {
    const rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
    const listed = [aRoom({ gameId: 'pager', region: 'us-east-1' }), aRoom({ gameId: 'pager', region: 'us-east-1' })];
    for (const room of listed) await rooms.createWithMember(room);
    const seen: string[] = [];
    let nextToken: string | undefined;
    do {
      const query = new URLSearchParams({
        gameId: 'pager',
        version: '1.0.0',
        limit: '1',
        ...(nextToken ? { nextToken } : {}),
      });
      const page = await api.call('GET', `/v1/rooms?${query.toString()}`, { token: player });
      expect(page.status).toBe(200);
      seen.push(...page.body.rooms.map((room: { roomId: string }) => room.roomId));
      nextToken = page.body.nextToken;
    } while (nextToken);
    expect(seen.sort()).toEqual(listed.map((room) => room.roomId).sort());
  });

  const token = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
  const partition = 'LIVE#arena#1#us-east-1';
  it.each([
    ['empty keys', { pk: '', sk: '', gsi2pk: partition, gsi2sk: '' }],
    ['an empty sort key', { pk: 'ROOM#r1', sk: '', gsi2pk: partition, gsi2sk: '2026#r1' }],
    ['an empty index sort key', { pk: 'ROOM#r1', sk: 'ROOM', gsi2pk: partition, gsi2sk: '' }],
    ['a key of another item kind', { pk: 'ACCOUNT#alice', sk: 'BAN', gsi2pk: partition, gsi2sk: '2026#r1' }],
    ['an oversized sort key', { pk: 'ROOM#r1', sk: 'ROOM', gsi2pk: partition, gsi2sk: 'x'.repeat(1100) }],
    ['a key of another partition', { pk: 'ROOM#r1', sk: 'ROOM', gsi2pk: 'LIVE#x#1#us-east-1', gsi2sk: '2026#r1' }],
    ['numbers instead of strings', { pk: 1, sk: 2, gsi2pk: partition, gsi2sk: 3 }],
    ['not JSON', 'garbage'],
  ])('GET /v1/rooms with a nextToken holding %s', async (_name, key) => {
    const query = new URLSearchParams({ gameId: 'arena', version: '1', nextToken: token(key) });
    const response = await api.call('GET', `/v1/rooms?${query.toString()}`, { token: player });
    await expectBadRequest(response, 'query.nextToken');
  });
});

describe('malformed percent escapes in the path → 400 before authentication', () => {
  it.each([
    ['GET', '/v1/rooms/%E0%A4%A'],
    ['GET', '/v1/rooms/%'],
    ['POST', '/v1/rooms/%zz/join'],
    ['DELETE', '/v1/rooms/%C3%28/members/me'],
    ['GET', '/v1/admin/games/%/versions/1'],
    ['DELETE', '/v1/admin/bans/%ff%fe'],
  ])('%s %s answers 400 BAD_REQUEST with or without a token', async (method, path) => {
    for (const token of [undefined, tokenOf('player')]) {
      const response = await api.call(method, path, { token });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { fields: [{ field: 'path' }] } });
    }
  });
});
