import fc from 'fast-check';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../core/infra/keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { routes } from '../../../lambdas/http/routes';
import { aRoom } from '../../helpers/factories';
import { hostileBody, hostileObject, hostilePageToken, malformedSegment } from '../../helpers/hostile-json';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Issue 8, point 9: every route of the route table against JSON that cannot be stored exactly
 * (huge or tiny numbers, deep nesting, empty and `__proto__` keys), hostile page tokens and
 * malformed percent escapes. Never a 5xx; a hostile field is a 400 naming a field; stored
 * rooms, configurations, templates and bans are unchanged afterwards.
 */
let api: TestApi;
const tokens: Record<'player' | 'admin', string> = { player: '', admin: '' };

const room = aRoom({ state: 'ready', players: 0, maxPlayers: 4, gameId: 'arena', version: '1', region: 'us-east-1' });
const configurationPath = '/v1/admin/games/arena/versions/1';
const configuration = { binary: '/bin/true', maxPlayers: 4, serverSettings: { mode: 'ffa' }, env: { A: '1' } };
const templatePath = '/v1/admin/templates/fuzz';
const templateConstants = { maxMembers: 2, visibility: 'open', custom: { mode: 'duel' } };

beforeAll(async () => {
  api = await startTestApi({ JOIN_RATE_LIMIT_PER_MINUTE: '10000', CREATE_RATE_LIMIT_PER_MINUTE: '10000' });
  tokens.player = await api.platform.token('fuzzer');
  tokens.admin = await api.platform.token('ops', ['admin']);
  await dynamoRoomStore(api.platform.db, api.platform.tableName).createWithMember(room);
  expect((await api.call('PUT', configurationPath, { token: tokens.admin, body: configuration })).status).toBe(200);
  const template = { gameId: 'arena', version: '1', constants: templateConstants };
  expect((await api.call('PUT', templatePath, { token: tokens.admin, body: template })).status).toBe(200);
  expect((await api.call('POST', '/v1/admin/bans', { token: tokens.admin, body: { account: 'mallory' } })).status).toBe(
    201,
  );
});
afterAll(() => api.close());

const statuses: Record<string, Record<number, number>> = {};
function record(route: string, status: number): void {
  statuses[route] ??= {};
  statuses[route][status] = (statuses[route][status] ?? 0) + 1;
}
afterAll(() => process.stdout.write(`hostile JSON fuzz statuses: ${JSON.stringify(statuses)} (expected no 5xx)\n`));

/** Where a hostile body can go on each route that takes one, and the fields that hold free-form objects. */
const bodyRoutes = [
  {
    method: 'POST',
    path: '/v1/rooms',
    caller: 'player',
    base: { gameId: 'arena', version: '1' },
    objects: ['settings', 'protocol'],
  },
  {
    method: 'POST',
    path: '/v1/matchmaking/join',
    caller: 'player',
    base: { gameId: 'arena', version: '1' },
    objects: ['settings', 'criteria', 'protocol'],
  },
  { method: 'POST', path: `/v1/rooms/${room.roomId}/join`, caller: 'player', base: {}, objects: ['protocol'] },
  {
    method: 'POST',
    path: `/v1/rooms/${room.roomId}/commands`,
    caller: 'player',
    base: { command: 'say' },
    objects: ['args'],
  },
  {
    method: 'PUT',
    path: configurationPath,
    caller: 'admin',
    base: { binary: '/bin/true', maxPlayers: 4 },
    objects: ['serverSettings', 'env', 'protocol'],
  },
  {
    method: 'PUT',
    path: templatePath,
    caller: 'admin',
    base: { gameId: 'arena', version: '1', constants: templateConstants },
    objects: [],
  },
  { method: 'POST', path: '/v1/admin/bans', caller: 'admin', base: { account: 'mallory' }, objects: [] },
  // Takes no body: whatever is sent is read as JSON and ignored (no such room: 404).
  { method: 'POST', path: '/v1/admin/rooms/no-such-room/close', caller: 'admin', base: {}, objects: [] },
  // No such queue: a valid body is a 404, and no message is moved.
  { method: 'POST', path: '/v1/admin/queues/no-such-queue/redrive', caller: 'admin', base: { max: 1 }, objects: [] },
  {
    method: 'PUT',
    path: '/v1/admin/regions/fuzz-region',
    caller: 'admin',
    base: { location: { lat: 1, lon: 2 } },
    objects: [],
  },
  {
    method: 'POST',
    path: '/v1/admin/hosts',
    caller: 'admin',
    base: { hostId: 'fuzz-host', region: 'fuzz-region', maxServers: 1 },
    objects: [],
  },
  { method: 'PATCH', path: '/v1/admin/hosts/fuzz-host', caller: 'admin', base: { draining: true }, objects: [] },
  {
    method: 'PUT',
    path: '/v1/admin/hosts/fuzz-host/heartbeat',
    caller: 'admin',
    base: { cpu: 0.1, memory: 0.1, servers: 0 },
    objects: [],
  },
  { method: 'POST', path: '/v1/dev/tokens', caller: 'player', base: { account: 'x' }, objects: [] },
  {
    method: 'PATCH',
    path: `/v1/rooms/${room.roomId}`,
    caller: 'player',
    base: { properties: { custom: {} } },
    objects: [],
  },
  {
    method: 'PATCH',
    path: `/v1/rooms/${room.roomId}/members/me`,
    caller: 'player',
    base: { state: 'ready' },
    objects: [],
  },
  { method: 'POST', path: `/v1/rooms/${room.roomId}/host`, caller: 'player', base: { epoch: 1 }, objects: [] },
  {
    method: 'POST',
    path: `/v1/rooms/${room.roomId}/host/unreachable`,
    caller: 'player',
    base: { epoch: 1 },
    objects: [],
  },
  // The saved state is kept as JSON text, so any JSON value is storable: hostile bodies, never a 5xx.
  { method: 'PUT', path: `/v1/rooms/${room.roomId}/state`, caller: 'player', base: { state: {} }, objects: [] },
  { method: 'POST', path: '/v1/me/party-tokens', caller: 'player', base: { leader: 'x' }, objects: [] },
  {
    method: 'POST',
    path: `/v1/rooms/${room.roomId}/invites`,
    caller: 'player',
    base: { accounts: ['x'] },
    objects: [],
  },
] as const;

it('covers every route with a body', () => {
  const withBody = routes.filter((r) => r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH');
  expect(withBody).toHaveLength(bodyRoutes.length);
});

describe.each(bodyRoutes.filter((route) => route.objects.length > 0))(
  '$method $path',
  ({ method, path, caller, base, objects }) => {
    it('answers hostile JSON in a free-form object with 400 naming that field', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...objects), hostileObject, async (field, value) => {
          const response = await api.call(method, path, { token: tokens[caller], body: { ...base, [field]: value } });
          record(`${method} ${path} .${field}`, response.status);
          expect(response.status).toBe(400);
          expect(response.body.error.code).toBe('BAD_REQUEST');
          expect(response.body.error.details.fields[0].field).toMatch(new RegExp(`^body\\.(${field}|__proto__)`));
        }),
        { numRuns: 120 },
      );
    });
  },
);

describe.each(bodyRoutes)('$method $path', ({ method, path, caller, objects }) => {
  it('answers hostile JSON anywhere in the body without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileBody([
          'gameId',
          'version',
          'account',
          'latencies',
          'args',
          'constants',
          'properties',
          'party',
          'accounts',
          'leader',
          ...objects,
        ]),
        async (body) => {
          const response = await api.call(method, path, { token: tokens[caller], body });
          record(`${method} ${path}`, response.status);
          expect(response.status).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
          expect(typeof response.body.error.code).toBe('string');
        },
      ),
      { numRuns: 120 },
    );
  });
});

/** Session documents keep client JSON one level down: `constants.custom`, `properties.custom`. */
describe.each([
  { method: 'PUT', path: templatePath, base: { constants: templateConstants }, nested: ['constants'] },
  { method: 'POST', path: '/v1/rooms', base: { template: 'fuzz' }, nested: ['constants', 'properties'] },
  { method: 'PATCH', path: `/v1/rooms/${room.roomId}`, base: {}, nested: ['properties'] },
  { method: 'PATCH', path: `/v1/rooms/${room.roomId}/members/me`, base: {}, nested: ['properties'] },
] as const)('$method $path custom objects', ({ method, path, base, nested }) => {
  it('answers hostile JSON in a custom object with 400 naming it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...nested), hostileObject, async (parent, custom) => {
        const inner = parent === 'constants' && method === 'PUT' ? { ...templateConstants, custom } : { custom };
        const response = await api.call(method, path, {
          token: method === 'PUT' ? tokens.admin : tokens.player,
          body: { ...base, [parent]: inner },
        });
        record(`${method} ${path} .${parent}.custom`, response.status);
        expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
        expect(response.body.error.details.fields[0].field).toMatch(
          new RegExp(`^body\\.${parent}\\.(custom|__proto__)`),
        );
      }),
      { numRuns: 120 },
    );
  });
});

describe('paths and queries', () => {
  it('answers a malformed percent escape in any path parameter with 400, with or without a token', async () => {
    const templates = routes.filter((r) => r.path.includes('{'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...templates),
        malformedSegment,
        fc.boolean(),
        async (route, segment, withToken) => {
          const path = route.path.replace(/\{\w+\+?\}/g, segment);
          const response = await api.call(route.method, path, {
            token: withToken ? tokens.admin : undefined,
            body: route.method === 'PUT' ? configuration : undefined,
          });
          record(`${route.method} ${route.path} (malformed %)`, response.status);
          expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers a hostile nextToken with 400 naming query.nextToken', async () => {
    await fc.assert(
      fc.asyncProperty(hostilePageToken, async (nextToken) => {
        const query = new URLSearchParams({ gameId: 'arena', version: '1', nextToken });
        const response = await api.call('GET', `/v1/rooms?${query.toString()}`, { token: tokens.player });
        record('GET /v1/rooms nextToken', response.status);
        expect(response.status).toBe(400);
        expect(response.body.error.details.fields[0].field).toBe('query.nextToken');
      }),
      { numRuns: 150 },
    );
  });
});

describe('the history', () => {
  it('answers a hostile nextToken with 400 naming query.nextToken', async () => {
    await fc.assert(
      fc.asyncProperty(hostilePageToken, async (nextToken) => {
        const query = new URLSearchParams({ nextToken });
        const response = await api.call('GET', `/v1/admin/history?${query.toString()}`, { token: tokens.admin });
        record('GET /v1/admin/history nextToken', response.status);
        expect(response.status).toBe(400);
        expect(response.body.error.details.fields[0].field).toBe('query.nextToken');
      }),
      { numRuns: 150 },
    );
  });
});

describe('stored data', () => {
  it('is unchanged after the fuzzing: the room, the configuration, the template and the ban', async () => {
    const stored = await dynamoRoomStore(api.platform.db, api.platform.tableName).get(room.roomId);
    expect([stored.state, stored.players, stored.settings]).toEqual(['ready', 0, room.settings]);
    const got = await api.call('GET', configurationPath, { token: tokens.admin });
    expect(got.body.configuration).toMatchObject(configuration);
    const { Item: ban } = await api.platform.db.send(
      new GetCommand({ TableName: api.platform.tableName, Key: keys.ban('mallory'), ConsistentRead: true }),
    );
    expect(ban).toMatchObject({ account: 'mallory' });
    expect(ban?.reason).toBeUndefined();
    const storedTemplate = await api.call('GET', templatePath, { token: tokens.admin });
    expect(storedTemplate.body.template.constants).toEqual({ ...templateConstants, timeouts: {} });
  });
});
