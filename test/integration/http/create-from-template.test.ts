import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { configurePlatform } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * `POST /v1/rooms` with a `template` (docs/api.md, "Session documents"), over real HTTP on DynamoDB
 * Local. The spawner records spawns and never starts a server, so creates answer 202.
 */
let api: TestApi;
let admin: string;
let player: string;
const spawned: SpawnRequest[] = [];

class RecordingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

async function put(path: string, body: unknown): Promise<void> {
  const response = await api.call('PUT', path, { token: admin, body });
  if (response.status !== 200) throw new Error(`PUT ${path}: ${JSON.stringify(response.body)}`);
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_WAIT_S: '0.3', CREATE_RATE_LIMIT_PER_MINUTE: '1000' });
  configurePlatform({ spawner: () => new RecordingSpawner() });
  admin = await api.platform.token('ops', ['admin']);
  player = await api.platform.token('alice');
  await put('/v1/admin/games/arena/versions/1', { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600 });
  await put('/v1/admin/games/brawl/versions/1', { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600 });
  await put('/v1/admin/templates/duel', {
    gameId: 'arena',
    version: '1',
    constants: { maxMembers: 2, visibility: 'open' },
  });
  await put('/v1/admin/templates/brawl-duel', {
    gameId: 'brawl',
    version: '1',
    constants: { maxMembers: 2, visibility: 'open' },
  });
  await put('/v1/admin/templates/lobby', { constants: { maxMembers: 4, visibility: 'open' } });
}, 30_000);
afterAll(async () => {
  configurePlatform({ spawner: undefined });
  await api.close();
});
beforeEach(() => {
  spawned.length = 0;
});

const create = (body: unknown) => api.call('POST', '/v1/rooms', { token: player, body });

describe('creating a room from a template', () => {
  it('takes the configuration and the member count from the template', async () => {
    const response = await create({ template: 'duel', settings: { map: 'pit' } });
    expect(response.status).toBe(202);
    expect(response.body.room).toMatchObject({
      gameId: 'arena',
      version: '1',
      maxPlayers: 2,
      settings: { map: 'pit' },
    });
    expect(spawned.map((s) => [s.configuration.gameId, s.maxPlayers])).toEqual([['arena', 2]]);
  });

  it("accepts the template's own gameId and version repeated", async () => {
    expect((await create({ template: 'duel', gameId: 'arena', version: '1' })).status).toBe(202);
  });

  it('still creates a room the old way, from gameId and version (the default template)', async () => {
    const response = await create({ gameId: 'arena', version: '1' });
    expect([response.status, response.body.room.maxPlayers]).toEqual([202, 8]);
  });

  it.each([
    ['a template and a different gameId', { template: 'duel', gameId: 'brawl' }, 'body.gameId'],
    ['a template and a different maxPlayers', { template: 'duel', maxPlayers: 5 }, 'body.maxPlayers'],
    ['a constant other than custom', { template: 'duel', constants: { maxMembers: 5 } }, 'body.constants.maxMembers'],
    ['no template and no gameId', { version: '1' }, 'body.gameId'],
    ['a peer-hosted template and a gameId', { template: 'lobby', gameId: 'arena' }, 'body.gameId'],
  ])('refuses %s: 400 naming the field, spawning nothing', async (_name, body, field) => {
    const response = await create(body);
    expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(response.body.error.details.fields).toEqual([expect.objectContaining({ field })]);
    expect(spawned).toEqual([]);
  });

  it('creates a peer-hosted session without spawning anything: 201, a reservation without host or ports', async () => {
    const response = await create({ template: 'lobby' });
    expect([response.status, response.body.room.template, response.body.room.state]).toEqual([201, 'lobby', 'ready']);
    expect(response.body.reservation.host).toBeUndefined();
    expect(spawned).toEqual([]);
  });

  it('answers 404 for an unknown template', async () => {
    const response = await create({ template: 'nope' });
    expect([response.status, response.body.error.details]).toEqual([404, { template: 'nope' }]);
  });

  it("answers the template's 404 once its configuration is deleted", async () => {
    expect((await api.call('DELETE', '/v1/admin/games/brawl/versions/1', { token: admin })).status).toBe(204);
    const response = await create({ template: 'brawl-duel' });
    expect([response.status, response.body.error.details]).toEqual([
      404,
      { template: 'brawl-duel', gameId: 'brawl', version: '1' },
    ]);
    expect(spawned).toEqual([]);
  });
});
