import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { keys, type ItemKey } from '../../../core/infra/keys';
import { configurePlatform } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Dedicated rooms of more than 100 players, over real HTTP on DynamoDB Local: a configuration
 * may take up to 1,000 players, but only a template with the capability `large` makes a room
 * of more than 100 (its members are items of their own); any other create, and matchmaking,
 * is refused with the fix named. The spawner records spawns and never starts a server.
 */
let api: TestApi;
let admin: string;
const spawned: SpawnRequest[] = [];

class RecordingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_WAIT_S: '0.3', CREATE_RATE_LIMIT_PER_MINUTE: '1000' });
  configurePlatform({ spawner: () => new RecordingSpawner() });
  admin = await api.platform.token('ops', ['admin']);
}, 30_000);
afterAll(async () => {
  configurePlatform({ spawner: undefined });
  await api.close();
});
beforeEach(() => {
  spawned.length = 0;
});

const put = (path: string, body: unknown) => api.call('PUT', path, { token: admin, body });

describe('a game server configuration of up to 1,000 players', () => {
  beforeAll(async () => {
    const configured = await put('/v1/admin/games/stadium/versions/1', {
      binary: '/bin/true',
      maxPlayers: 1_000,
      spawnTimeoutS: 600,
    });
    expect([configured.status, configured.body.configuration?.maxPlayers]).toEqual([200, 1_000]);
    const template = await put('/v1/admin/templates/stadium-large', {
      gameId: 'stadium',
      version: '1',
      constants: { maxMembers: 1_000, visibility: 'open', capabilities: ['large'] },
    });
    expect(template.status).toBe(200);
  });

  it('refuses more than 1,000', async () => {
    const response = await put('/v1/admin/games/stadium/versions/2', { binary: '/bin/true', maxPlayers: 1_001 });
    expect(response.status).toBe(400);
  });

  it.each([
    ["the configuration's size", {}],
    ['a maxPlayers over 100', { maxPlayers: 101 }],
  ])('refuses a create without a large template (%s): 400 naming the fix, nothing spawned', async (_, extra) => {
    const player = await api.platform.token(`creator-${spawned.length}-${JSON.stringify(extra)}`);
    const response = await api.call('POST', '/v1/rooms', {
      token: player,
      body: { gameId: 'stadium', version: '1', ...extra },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('"capabilities": ["large"]');
    expect(response.body.error.details.fields).toEqual([expect.objectContaining({ field: 'body.maxPlayers' })]);
    expect(spawned).toEqual([]);
  });

  it('still makes a room of at most 100 from it without a template', async () => {
    const player = await api.platform.token('small-creator');
    const response = await api.call('POST', '/v1/rooms', {
      token: player,
      body: { gameId: 'stadium', version: '1', maxPlayers: 100 },
    });
    expect([response.status, response.body.room?.maxPlayers]).toEqual([202, 100]);
  });

  it('refuses matchmaking into it: 400 naming the fix, nothing spawned', async () => {
    const player = await api.platform.token('matcher');
    const response = await api.call('POST', '/v1/matchmaking/join', {
      token: player,
      body: { gameId: 'stadium', version: '1' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('"capabilities": ["large"]');
    expect(spawned).toEqual([]);
  });

  it('makes a large room from the large template: its creator a member item, the room item no list', async () => {
    const player = await api.platform.token('stadium-creator');
    const response = await api.call('POST', '/v1/rooms', { token: player, body: { template: 'stadium-large' } });
    expect(response.status).toBe(202);
    expect(response.body.room).toMatchObject({ maxPlayers: 1_000, constants: { capabilities: ['large'] } });
    // The caller's own member entry, read with its account (the room's item holds no members).
    expect(response.body.room.member).toMatchObject({ account: 'stadium-creator' });
    expect(spawned.map((s) => s.maxPlayers)).toEqual([1_000]);
    const roomId = response.body.room.roomId as string;
    const get = (Key: ItemKey) =>
      api.platform.db.send(new GetCommand({ TableName: api.platform.tableName, Key, ConsistentRead: true }));
    const { Item: room } = await get(keys.room(roomId));
    expect(room).toMatchObject({ players: 1, maxPlayers: 1_000 });
    expect(room).not.toHaveProperty('members');
    expect((await get(keys.largeMember(roomId, 'stadium-creator'))).Item).toMatchObject({ account: 'stadium-creator' });
  });
});

describe('the answer of a join into a large session', () => {
  it('counts the members as they are after it, whatever this process saw before', async () => {
    const template = {
      constants: { maxMembers: 200, visibility: 'open', capabilities: ['large'], timeouts: { sessionEmptyMs: null } },
    };
    expect((await put('/v1/admin/templates/hall', template)).status).toBe(200);
    const host = await api.platform.token('hall-host');
    const created = await api.call('POST', '/v1/rooms', { token: host, body: { template: 'hall' } });
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId as string;
    const [a, b, c] = await Promise.all(['hall-a', 'hall-b', 'hall-c'].map((name) => api.platform.token(name)));
    const join = async (token: string | undefined) => {
      const joined = await api.call('POST', `/v1/rooms/${roomId}/join`, { token, body: {} });
      expect(joined.status).toBe(200);
      return joined.body.room as { players: number; changeNumber: number; member?: { account: string } };
    };
    expect((await join(a)).players).toBe(2);
    expect((await join(b)).players).toBe(3);
    // A leave this join path never sees: its count is in the room's item only.
    expect((await api.call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: a })).status).toBe(204);
    const answer = await join(c);
    expect(answer.member).toMatchObject({ account: 'hall-c' });
    const seen = await api.call('GET', `/v1/rooms/${roomId}`, { token: host });
    expect([answer.players, answer.changeNumber]).toEqual([3, seen.body.room.changeNumber]);
  });
});
