import fc from 'fast-check';
import { hostileObject } from '../../helpers/hostile-json';
import { startTestApi, type TestApi, type TestPlatform } from '../../helpers/platform';

/** The session template admin API over HTTP, on DynamoDB Local. */
let api: TestApi;
let platform: TestPlatform;
let call: TestApi['call'];
let admin: string;
let player: string;

const gamePath = '/v1/admin/games/arena/versions/1.0.0';
const duelPath = '/v1/admin/templates/duel';
const constants = { maxMembers: 2, visibility: 'private', timeouts: { readyMs: 10_000, inactiveMs: null } };
const dedicated = { gameId: 'arena', version: '1.0.0', constants };

beforeAll(async () => {
  api = await startTestApi();
  ({ platform, call } = api);
  admin = await platform.token('ops', ['admin']);
  player = await platform.token('alice');
  const put = await call('PUT', gamePath, { token: admin, body: { binary: '/games/arena', maxPlayers: 8 } });
  if (put.status !== 200) throw new Error(`Could not install the configuration: ${JSON.stringify(put.body)}`);
}, 30_000);
afterAll(() => api.close());

describe('session templates', () => {
  it('stores, reads back and deletes a dedicated template, as written', async () => {
    const put = await call('PUT', duelPath, { token: admin, body: dedicated });
    expect(put.status).toBe(200);
    const expected = {
      name: 'duel',
      hosting: 'dedicated',
      gameId: 'arena',
      version: '1.0.0',
      constants: { ...constants, custom: {} },
      updatedAt: expect.any(String),
    };
    expect(put.body.template).toEqual(expected);
    const got = await call('GET', duelPath, { token: admin });
    expect([got.status, got.body.template]).toEqual([200, put.body.template]);
    expect((await call('DELETE', duelPath, { token: admin })).status).toBe(204);
    const gone = await call('GET', duelPath, { token: admin });
    expect([gone.status, gone.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await call('DELETE', duelPath, { token: admin })).status).toBe(404);
  });

  it('stores a peer-hosted template: no gameId, no version', async () => {
    const body = { constants: { maxMembers: 100, visibility: 'open', custom: { topic: 'chess' } } };
    const put = await call('PUT', '/v1/admin/templates/lobby', { token: admin, body });
    expect([put.status, put.body.template.hosting, put.body.template.gameId]).toEqual([200, 'peerHosted', undefined]);
    expect((await call('GET', '/v1/admin/templates/lobby', { token: admin })).body.template.constants).toEqual({
      maxMembers: 100,
      visibility: 'open',
      timeouts: {},
      custom: { topic: 'chess' },
    });
  });

  it('replaces a template with a second PUT', async () => {
    await call('PUT', '/v1/admin/templates/again', { token: admin, body: dedicated });
    const body = { constants: { ...constants, visibility: 'open' } };
    expect((await call('PUT', '/v1/admin/templates/again', { token: admin, body })).status).toBe(200);
    const got = (await call('GET', '/v1/admin/templates/again', { token: admin })).body.template;
    expect([got.hosting, got.constants.visibility]).toEqual(['peerHosted', 'open']);
  });

  it.each(['PUT', 'GET', 'DELETE'])('refuses %s with a player token: 403 FORBIDDEN', async (method) => {
    const response = await call(method, duelPath, { token: player, body: method === 'PUT' ? dedicated : undefined });
    expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('refuses a request without a token: 401', async () => {
    expect((await call('GET', duelPath)).status).toBe(401);
  });

  it('answers 404 NOT_FOUND for a template naming a configuration that does not exist, and stores nothing', async () => {
    const response = await call('PUT', '/v1/admin/templates/ghost', {
      token: admin,
      body: { ...dedicated, version: '9.9.9' },
    });
    expect([response.status, response.body.error.code, response.body.error.details]).toEqual([
      404,
      'NOT_FOUND',
      { template: 'ghost', gameId: 'arena', version: '9.9.9' },
    ]);
    expect((await call('GET', '/v1/admin/templates/ghost', { token: admin })).status).toBe(404);
  });

  it.each([
    ['gameId without version', { gameId: 'arena', constants }, 'body.version'],
    ['version without gameId', { version: '1.0.0', constants }, 'body.gameId'],
    ['no constants', { gameId: 'arena', version: '1.0.0' }, 'body.constants'],
    ['maxMembers 0', { constants: { ...constants, maxMembers: 0 } }, 'body.constants.maxMembers'],
    ['maxMembers 101', { constants: { ...constants, maxMembers: 101 } }, 'body.constants.maxMembers'],
    [
      'more members than the configuration',
      { ...dedicated, constants: { ...constants, maxMembers: 9 } },
      'body.constants.maxMembers',
    ],
    ['a bad visibility', { constants: { ...constants, visibility: 'hidden' } }, 'body.constants.visibility'],
    [
      'a negative timeout',
      { constants: { ...constants, timeouts: { reservedMs: -5 } } },
      'body.constants.timeouts.reservedMs',
    ],
    [
      'an unknown timeout',
      { constants: { ...constants, timeouts: { foreverMs: 1 } } },
      'body.constants.timeouts.foreverMs',
    ],
    ['custom over 2 KB', { constants: { ...constants, custom: { b: 'x'.repeat(3000) } } }, 'body.constants.custom'],
    ['an unknown key', { ...dedicated, binary: '/x' }, 'body.binary'],
  ])('refuses %s: 400 naming the field', async (_name, body, field) => {
    const response = await call('PUT', duelPath, { token: admin, body });
    expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(response.body.error.details.fields).toEqual([expect.objectContaining({ field })]);
  });

  it.each([
    ['too long', 'x'.repeat(65)],
    ['not URL-safe', 'two%20words'],
  ])('refuses a template name that is %s: 400 naming path.template', async (_name, name) => {
    const response = await call('GET', `/v1/admin/templates/${name}`, { token: admin });
    expect([response.status, response.body.error.details.fields[0].field]).toEqual([400, 'path.template']);
  });

  it('refuses a body that is not JSON: 400', async () => {
    expect((await call('PUT', duelPath, { token: admin, rawBody: '{"constants":' })).status).toBe(400);
  });

  it('answers any body with 200 or a 4xx, never a 5xx, and stores only valid templates', async () => {
    const statuses: Record<number, number> = {};
    let stored = 0;
    // Mostly valid, so stored templates are checked too; odd values in every field.
    const timeout = fc.oneof(
      { arbitrary: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 86_400_000 })), weight: 6 },
      fc.integer({ min: -10, max: 3_000_000_000 }),
      fc.jsonValue(),
    );
    const configurationRef = fc.oneof(
      { arbitrary: fc.constant({}), weight: 3 },
      { arbitrary: fc.constant({ gameId: 'arena', version: '1.0.0' }), weight: 3 },
      fc.record(
        { gameId: fc.constantFrom('arena', 'nope', '', 'a b'), version: fc.constantFrom('1.0.0', '2', '') },
        { requiredKeys: [] },
      ),
    );
    const nearlyValid = fc
      .tuple(
        configurationRef,
        fc.record(
          {
            maxMembers: fc.oneof(
              { arbitrary: fc.integer({ min: 1, max: 8 }), weight: 6 },
              fc.integer({ min: -5, max: 120 }),
              fc.double(),
              fc.string(),
            ),
            visibility: fc.oneof(
              { arbitrary: fc.constantFrom('open', 'visible', 'private'), weight: 6 },
              fc.constantFrom('Open', ''),
            ),
            timeouts: fc.dictionary(
              fc.oneof(
                { arbitrary: fc.constantFrom('reservedMs', 'readyMs', 'inactiveMs', 'sessionEmptyMs'), weight: 8 },
                fc.constant('x'),
              ),
              timeout,
              { maxKeys: 4 },
            ),
            custom: fc.oneof(
              {
                arbitrary: fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
                weight: 4,
              },
              hostileObject,
            ),
          },
          { requiredKeys: ['maxMembers', 'visibility'] },
        ),
      )
      .map(([ref, constants]) => ({ ...ref, constants }));
    const names = fc.oneof(
      { arbitrary: fc.constantFrom('fuzz', 'fuzz.2', 'x'.repeat(64)), weight: 4 },
      fc.string({ maxLength: 70 }).map(encodeURIComponent),
    );
    await fc.assert(
      fc.asyncProperty(names, fc.oneof({ arbitrary: nearlyValid, weight: 4 }, fc.jsonValue()), async (name, body) => {
        const response = await call('PUT', `/v1/admin/templates/${name}`, { token: admin, body });
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        expect(response.status === 200 || (response.status >= 400 && response.status < 500)).toBe(true);
        if (response.status >= 400) expect(typeof response.body.error.code).toBe('string');
        if (response.status === 200) {
          stored += 1;
          const template = (await call('GET', `/v1/admin/templates/${name}`, { token: admin })).body.template;
          expect(template.constants.maxMembers).toBeGreaterThanOrEqual(1);
          expect(template.constants.maxMembers).toBeLessThanOrEqual(template.hosting === 'dedicated' ? 8 : 100);
        }
      }),
      { numRuns: 300 },
    );
    process.stdout.write(`PUT /v1/admin/templates fuzz: ${JSON.stringify(statuses)} (expected no 5xx)\n`);
    // The fuzzer must reach the store, not only the validator.
    expect(stored).toBeGreaterThan(10);
  }, 120_000);
});
