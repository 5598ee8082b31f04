import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Issue 10, points 4 and 5: a deployment whose fleet opens 4 game ports and whose spawn default
 * is Fargate's (the environment the CDK stack gives every function: test/cdk/game-servers.test.ts).
 */
let api: TestApi;
let admin: string;

beforeAll(async () => {
  api = await startTestApi({
    FLEET_GAME_PORTS: '4',
    DEFAULT_SPAWN_TIMEOUT_S: '120',
    FLEET_ECR_REPOSITORIES: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena',
  });
  admin = await api.platform.token('ops', ['admin']);
});
afterAll(() => api.close());

const path = '/v1/admin/games/arena/versions/2.0.0';
const valid = { image: 'registry.example/arena:2.0.0', maxPlayers: 8 };

describe('configurations against the fleet', () => {
  it('refuses more ports than the fleet opens with 400 naming the limit, and stores nothing', async () => {
    const response = await api.call('PUT', path, { token: admin, body: { ...valid, ports: 16 } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('BAD_REQUEST');
    expect(response.body.error.message).toMatch(/at most 4 ports.*asks for 16/);
    expect(response.body.error.details.fields).toEqual([
      { field: 'body.ports', message: 'must be at most 4 on this fleet' },
    ]);
    expect((await api.call('GET', path, { token: admin })).status).toBe(404);
  });

  it('refuses a private ECR image the fleet cannot pull with 400 naming body.image; accepts its own repository', async () => {
    const other = await api.call('PUT', path, {
      token: admin,
      body: { ...valid, image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/other:1' },
    });
    expect([other.status, other.body.error.details.fields[0].field]).toEqual([400, 'body.image']);
    expect(other.body.error.message).toMatch(/studio\/other is not one of them/);
    const own = await api.call('PUT', path, {
      token: admin,
      body: { ...valid, image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena:2.0.0' },
    });
    expect(own.status).toBe(200);
  });

  it("accepts the fleet's own capacity", async () => {
    expect((await api.call('PUT', path, { token: admin, body: { ...valid, ports: 4 } })).status).toBe(200);
  });

  it("fills the fleet's spawn deadline when the configuration sets none, and keeps one it sets", async () => {
    await api.call('PUT', path, { token: admin, body: valid });
    expect((await api.call('GET', path, { token: admin })).body.configuration.spawnTimeoutS).toBe(120);
    await api.call('PUT', path, { token: admin, body: { ...valid, spawnTimeoutS: 45 } });
    expect((await api.call('GET', path, { token: admin })).body.configuration.spawnTimeoutS).toBe(45);
  });
});
