import type { LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Rooms on real game servers: the local cloud in this process (DynamoDB Local, SQS
 * emulator, pollers, gateway, fleet), real controller sidecars, and a game written from
 * the protocol page alone (test/fixtures/games/protocol-game.mjs).
 */
const games = {
  ok: { args: ['ok'], spawnTimeoutS: 10, commands: ['say'] },
  never: { args: ['never-inited'], spawnTimeoutS: 2 },
  hang: { args: ['hang-status'], spawnTimeoutS: 10 },
  slow: { args: ['slow-status'], spawnTimeoutS: 10 },
  crash: { args: ['crash-after-inited'], spawnTimeoutS: 10 },
  twoports: { args: ['ok'], spawnTimeoutS: 10, ports: 2 },
  exit: { args: ['exit-before-inited'], spawnTimeoutS: 10 },
} as const;

let test: TestCloud;
let cloud: LocalCloud;
let call: ReturnType<typeof jsonClient>;
let token: string;

beforeAll(async () => {
  test = await startTestCloud(
    Object.entries(games).map(([gameId, game]) => ({
      gameId,
      version: '1',
      configuration: { binary: fixtureGame, maxPlayers: 4, ports: 1, serverSettings: { tick: 20 }, ...game },
    })),
    {
      sidecar: { heartbeatIntervalS: 0.5, statusIntervalS: 0.5, statusTimeoutS: 1 },
      heartbeatTimeoutS: 3,
      sweepIntervalMs: 500,
    },
  );
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

const create = (gameId: keyof typeof games, settings: Record<string, unknown> = {}) =>
  call('POST', '/v1/rooms', { token, body: { gameId, version: '1', settings } });

async function roomEventually(roomId: string, accept: (room: any) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call('GET', `/v1/rooms/${roomId}`, { token });
    if (accept(body.room) || Date.now() > deadline) return body.room;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('POST /v1/rooms on the local fleet', () => {
  it('spawns a server, answers 201 once it called inited, with the creator holding the first slot', async () => {
    const response = await create('ok', { map: 'harbor' });
    expect(response.status).toBe(201);
    expect(response.body.room).toMatchObject({
      state: 'ready',
      players: 1,
      maxPlayers: 4,
      gameId: 'ok',
      region: 'local',
    });
    expect(response.body.reservation).toEqual({
      key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      host: '127.0.0.1',
      ports: [expect.any(Number)],
      expiresAt: expect.any(String),
    });
    // The fixture echoes what it was started with into its inited settings.
    expect(response.body.room.settings).toMatchObject({
      map: 'harbor',
      startedWithPorts: String(response.body.reservation.ports[0]),
    });
  });

  it('hands out distinct ports to rooms alive at once', async () => {
    const [a, b] = await Promise.all([create('twoports'), create('twoports')]);
    const ports = [...a.body.reservation.ports, ...b.body.reservation.ports];
    expect(new Set(ports).size).toBe(4);
  });

  it('kills a server that never calls inited at the spawn timeout and answers 504 SPAWN_TIMEOUT', async () => {
    const started = Date.now();
    const response = await create('never');
    const elapsed = Date.now() - started;
    process.stdout.write(`spawn timeout answered after ${elapsed} ms (configured 2000 ms)\n`);
    expect([response.status, response.body.error.code]).toEqual([504, 'SPAWN_TIMEOUT']);
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(elapsed).toBeLessThan(5_000);
    expect(response.body.error.details.roomId).toEqual(expect.any(String));
    const room = await roomEventually(response.body.error.details.roomId, (r) => r.state === 'failed');
    expect(room).toMatchObject({ state: 'failed', failureReason: 'spawn-timeout' });
  });

  it('answers 502 SPAWN_FAILED when the server exits before inited', async () => {
    const response = await create('exit');
    expect([response.status, response.body.error.code]).toEqual([502, 'SPAWN_FAILED']);
  });

  it('fails the room of a server that stops answering status', async () => {
    const created = await create('hang');
    expect(created.status).toBe(201);
    const room = await roomEventually(created.body.room.roomId, (r) => r.state === 'failed');
    expect(room).toMatchObject({ state: 'failed', failureReason: 'hung' });
  });

  it('fails the room of a server that crashes', async () => {
    const created = await create('crash');
    expect(created.status).toBe(201);
    const room = await roomEventually(created.body.room.roomId, (r) => r.state === 'failed');
    expect(room).toMatchObject({ state: 'failed', failureReason: 'crashed' });
  });

  it('never kills a slow server that still answers status', async () => {
    const created = await create('slow');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await call('GET', `/v1/rooms/${created.body.room.roomId}`, { token })).body.room.state).toBe('ready');
  });

  it('fails the room when its sidecar dies without a word (kill -9): the fleet saw it exit', async () => {
    const created = await create('ok');
    const before = new Set(cloud.fleet.pids);
    const pid = (cloud.fleet as unknown as { tasks: Map<string, { child: { pid: number } }> }).tasks.get(
      `local:${created.body.room.roomId}`,
    )?.child.pid;
    expect(pid && before.has(pid)).toBeTruthy();
    process.kill(pid ?? -1, 'SIGKILL');
    const room = await roomEventually(created.body.room.roomId, (r) => r.state === 'failed', 10_000);
    expect(room).toMatchObject({ state: 'failed', failureReason: 'sidecar-lost' });
  });

  it('refuses an unknown game with 404 and a bad body with 400', async () => {
    expect((await call('POST', '/v1/rooms', { token, body: { gameId: 'nope', version: '1' } })).status).toBe(404);
    expect(
      (await call('POST', '/v1/rooms', { token, body: { gameId: 'ok', version: '1', maxPlayers: 5 } })).status,
    ).toBe(400);
    const big = { blob: 'x'.repeat(5000) };
    expect(
      (await call('POST', '/v1/rooms', { token, body: { gameId: 'ok', version: '1', settings: big } })).status,
    ).toBe(400);
  });
});

describe("the protocol game's message to its owner", () => {
  it('reaches the owner through GET /v1/rooms/{roomId}/messages', async () => {
    const created = await create('ok');
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId;
    // The fixture answers the owner's say, and sends the owner a `message` notification with it.
    const said = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token,
      body: { command: 'say', args: { text: 'doors close in 5' } },
    });
    expect([said.status, said.body.state, said.body.result]).toEqual([200, 'answered', { said: 'doors close in 5' }]);
    // A long poll: the message and the command's answer travel separately, in either order.
    const read = await call('GET', `/v1/rooms/${roomId}/messages?after=0&waitS=15`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      messages: [{ seq: 1, data: { type: 'said', text: 'doors close in 5' }, at: expect.any(String) }],
      next: 1,
    });
  });
});
