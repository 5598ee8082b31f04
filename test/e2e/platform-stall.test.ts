import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../local/free-port';
import { healthStatus, jsonClient } from '../helpers/http';

/**
 * The reproduction: `npm start` with live rooms, the whole platform process stopped
 * (SIGSTOP to its process group) and resumed. The sidecars and games run on; heartbeats pile
 * up. No healthy room may be failed, no healthy server killed. Default settings throughout
 * (heartbeats every 2 s, timeout 10 s, a sweep every 5 s). ROOMKEEPER_STALL_S sets the stall.
 */
const root = join(__dirname, '../..');
const stallS = Number(process.env.ROOMKEEPER_STALL_S ?? 60);
let platform: ChildProcess | undefined;
let output = '';

afterAll(async () => {
  if (!platform?.pid || platform.exitCode !== null) return;
  const exited = new Promise((resolve) => platform?.once('exit', resolve));
  process.kill(-platform.pid, 'SIGCONT');
  platform.kill('SIGTERM');
  await exited;
});

async function startPlatform(port: number): Promise<string> {
  platform = spawn(join(root, 'node_modules/.bin/tsx'), ['local/main.ts', '--port', String(port)], {
    cwd: root,
    // Its own process group, so the stop reaches the whole platform (not DynamoDB Local or the sidecars, which lead their own).
    detached: true,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  platform.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  platform.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const apiUrl = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();
  for (;;) {
    if (platform.exitCode !== null) throw new Error(`the local cloud exited during start-up:\n${output}`);
    if (Date.now() - startedAt > 60_000) throw new Error(`the local cloud was not healthy within 60 s:\n${output}`);
    const status = await healthStatus(apiUrl);
    if (status === 200) return apiUrl;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a stall of the whole platform process', () => {
  it(
    `fails no healthy room: npm start stopped for ${stallS} s, then every room still ready and joinable`,
    async () => {
      const call = jsonClient(await startPlatform(await freePort()));
      const token = async (account: string) =>
        (await call('POST', '/v1/dev/tokens', { body: { account } })).body.access_token as string;
      const owner = await token('owner');
      const roomIds: string[] = [];
      for (let i = 0; i < 4; i++) {
        const created = await call('POST', '/v1/rooms', { token: owner, body: { gameId: 'sample', version: '1.0.0' } });
        expect(created.status).toBe(201);
        roomIds.push(created.body.room.roomId);
      }
      const pgid = platform?.pid ?? -1;
      process.kill(-pgid, 'SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, stallS * 1000));
      process.kill(-pgid, 'SIGCONT');
      // Two heartbeat timeouts and several sweeps after the stall.
      await new Promise((resolve) => setTimeout(resolve, 25_000));
      const rooms = [];
      for (const roomId of roomIds) rooms.push((await call('GET', `/v1/rooms/${roomId}`, { token: owner })).body.room);
      const survived = rooms.filter((r) => r.state === 'ready').length;
      process.stdout.write(
        `npm start stopped (SIGSTOP) for ${stallS} s with ${roomIds.length} live rooms: ` +
          `${survived} of ${roomIds.length} still ready (heartbeat timeout 10 s)\n`,
      );
      expect(rooms.map((r) => [r.state, r.failureReason])).toEqual(roomIds.map(() => ['ready', undefined]));
      // Their servers still run: each room takes a player.
      for (const [i, roomId] of roomIds.entries()) {
        const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: await token(`p${i}`) });
        if (joined.status !== 200) {
          const room = (await call('GET', `/v1/rooms/${roomId}`, { token: owner })).body.room;
          process.stdout.write(
            `join after the stall: ${joined.status} ${JSON.stringify(joined.body)}; room ${JSON.stringify(room)}\n`,
          );
        }
        expect(joined.status).toBe(200);
      }
    },
    120_000 + stallS * 1000,
  );
});
