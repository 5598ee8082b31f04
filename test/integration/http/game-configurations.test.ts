import fc from 'fast-check';
import { startTestApi, type TestApi, type TestPlatform } from '../../helpers/platform';

let api: TestApi;
let platform: TestPlatform;
let call: TestApi['call'];
let admin: string;
let player: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ platform, call } = api);
  admin = await platform.token('ops', ['admin']);
  player = await platform.token('alice');
});
afterAll(() => api.close());

const path = '/v1/admin/games/arena/versions/1.0.0';
const valid = { binary: '/games/arena', maxPlayers: 8 };

describe('game server configurations', () => {
  it('stores, reads back and deletes a configuration, with defaults filled in', async () => {
    const put = await call('PUT', path, { token: admin, body: { ...valid, args: ['--fast'], ports: 2 } });
    expect(put.status).toBe(200);
    const got = await call('GET', path, { token: admin });
    expect(got.body.configuration).toMatchObject({
      gameId: 'arena',
      version: '1.0.0',
      binary: '/games/arena',
      args: ['--fast'],
      ports: 2,
      maxPlayers: 8,
      spawnTimeoutS: 30,
      reservationTimeoutS: 30,
      env: {},
      commands: [],
    });
    expect((await call('DELETE', path, { token: admin })).status).toBe(204);
    expect((await call('GET', path, { token: admin })).body.error.code).toBe('NOT_FOUND');
    expect((await call('DELETE', path, { token: admin })).status).toBe(404);
  });

  it.each(['PUT', 'GET', 'DELETE'])('refuses %s with a player token: 403 FORBIDDEN', async (method) => {
    const response = await call(method, path, { token: player, body: method === 'PUT' ? valid : undefined });
    expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it.each([
    ['ports', 0],
    ['ports', 17],
    ['maxPlayers', 0],
    ['maxPlayers', 1_001],
    ['spawnTimeoutS', 0],
    ['spawnTimeoutS', 601],
    ['reservationTimeoutS', 0],
    ['reservationTimeoutS', 3601],
    ['maxPlayers', 'eight'],
  ])('refuses %s = %p with 400 naming the field', async (field, value) => {
    const response = await call('PUT', path, { token: admin, body: { ...valid, [field]: value } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.fields).toEqual([expect.objectContaining({ field: `body.${field}` })]);
  });

  it.each([
    ['ports', 1],
    ['ports', 16],
    ['spawnTimeoutS', 1],
    ['reservationTimeoutS', 1],
    ['maxPlayers', 100],
  ])('accepts the edge %s = %p', async (field, value) => {
    expect((await call('PUT', path, { token: admin, body: { ...valid, [field]: value } })).status).toBe(200);
  });

  it('demands a binary or an image', async () => {
    const response = await call('PUT', path, { token: admin, body: { maxPlayers: 4 } });
    expect([response.status, response.body.error.details.fields[0].field]).toEqual([400, 'body.binary']);
  });

  it('refuses an invalid game id in the path', async () => {
    expect((await call('PUT', '/v1/admin/games/bad%20id/versions/1', { token: admin, body: valid })).status).toBe(400);
  });

  it('answers any body with 200 or a 4xx, never a 5xx, and never stores an invalid configuration', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('binary', 'image', 'maxPlayers', 'ports', 'env', 'args', 'x'), fc.jsonValue()),
        async (body) => {
          const response = await call('PUT', '/v1/admin/games/fuzz/versions/1', { token: admin, body });
          expect(response.status === 200 || (response.status >= 400 && response.status < 500)).toBe(true);
          if (response.status === 200) {
            const stored = (await call('GET', '/v1/admin/games/fuzz/versions/1', { token: admin })).body.configuration;
            expect(stored.maxPlayers).toBeGreaterThanOrEqual(1);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
