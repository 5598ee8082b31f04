import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalCloud } from '../../local/cloud';
import { platform } from '../../lambdas/dependencies';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { processTree } from '../helpers/process-tree';
import { processTreeAlive } from '../helpers/processes';

/**
 * What a hostile local game (same user as the platform) can reach through the processes the
 * local cloud starts: the environment of any of them (/proc/<pid>/environ), and the life of
 * whatever it starts itself. Real processes: the local cloud in this process, DynamoDB Local's
 * JVM, the SQS emulator, sidecars, and a game that starts a `setsid` grandchild. (A JVM
 * restarted under a platform process of its own: test/e2e/child-environment.test.ts.)
 */
const setsidGame = join(__dirname, '../fixtures/games/setsid-game.mjs');
const pidsDir = mkdtempSync(join(tmpdir(), 'roomkeeper-setsid-'));
const pidsFile = join(pidsDir, 'grandchildren');
const games = {
  ok: { binary: fixtureGame, args: ['ok'] },
  daemonizing: { binary: setsidGame, args: ['ok'], env: { SETSID_GAME_PIDS: pidsFile } },
  'daemonizing-crash': { binary: setsidGame, args: ['crash-after-inited'], env: { SETSID_GAME_PIDS: pidsFile } },
} as const;

let test: TestCloud;
let cloud: LocalCloud;
let stopped = false;
let call: ReturnType<typeof jsonClient>;
let token: string;
/** The `d` (private scalar) of both private JWKs of this run, as the configuration holds them. */
let privateScalars: string[];

beforeAll(async () => {
  test = await startTestCloud(
    Object.entries(games).map(([gameId, game]) => ({
      gameId,
      version: '1',
      configuration: { maxPlayers: 4, ports: 1, spawnTimeoutS: 10, ...game },
    })),
  );
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  const { auth, tokenSigningJwk } = platform().config;
  privateScalars = [auth.devSigningJwk, tokenSigningJwk].map((jwk) => (JSON.parse(jwk ?? '{}') as { d: string }).d);
}, 60_000);

afterAll(async () => {
  if (!stopped) await test?.stop();
  rmSync(pidsDir, { recursive: true, force: true });
});

/** What of the signing keys `text` (an environment) gives away. */
function keyMaterialIn(text: string): string[] {
  return [...privateScalars, '"d":', 'DEV_SIGNING_JWK', 'TOKEN_SIGNING_JWK'].filter((secret) => text.includes(secret));
}

function environOf(pid: number): string {
  return readFileSync(`/proc/${pid}/environ`, 'latin1');
}

async function until<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates a room of `gameId` and returns it with the pid of the grandchild its game started. */
async function createDaemonizing(gameId: 'daemonizing' | 'daemonizing-crash') {
  const before = existsSync(pidsFile) ? readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean).length : 0;
  const created = await call('POST', '/v1/rooms', { token, body: { gameId, version: '1' } });
  expect(created.status).toBe(201);
  const lines = readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean);
  expect(lines).toHaveLength(before + 1);
  const grandchild = Number(lines[before]?.split(' ')[1]);
  expect(processTreeAlive(grandchild)).toBe(true);
  return { roomId: created.body.room.roomId as string, grandchild };
}

describe('the signing keys never reach a child process', () => {
  it('are not in the platform process environment after start', () => {
    expect(privateScalars.every((d) => typeof d === 'string' && d.length > 20)).toBe(true);
    const own = Object.entries(process.env)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n');
    expect(keyMaterialIn(own)).toEqual([]);
  });

  it('are not in the environment of any process the platform runs (SQS emulator, DynamoDB Local, esbuild, a sidecar and its game)', async () => {
    expect((await call('POST', '/v1/rooms', { token, body: { gameId: 'ok', version: '1' } })).status).toBe(201);
    const below = processTree(process.pid).filter((p) => p.pid !== process.pid);
    const leaking = below.filter((p) => {
      try {
        return keyMaterialIn(environOf(p.pid)).length > 0;
      } catch {
        return false; // Exited since the listing.
      }
    });
    process.stdout.write(`processes below the platform: ${below.length}; holding key material: ${leaking.length}\n`);
    expect(below.length).toBeGreaterThanOrEqual(4);
    expect(leaking.map((p) => p.command)).toEqual([]);
  }, 30_000);
});

describe("a game's detached (setsid) grandchild does not outlive its server", () => {
  it('is gone once the room ends (the game crashed, the sidecar exited)', async () => {
    const { roomId, grandchild } = await createDaemonizing('daemonizing-crash');
    const room = await until(
      async () => (await call('GET', `/v1/rooms/${roomId}`, { token })).body.room,
      (r) => r.state === 'failed',
      15_000,
    );
    expect(room).toMatchObject({ state: 'failed', failureReason: 'crashed' });
    const alive = await until(
      () => processTreeAlive(grandchild),
      (a) => !a,
      5_000,
    );
    process.stdout.write(`containment ${cloud.fleet.containment}; grandchild alive after the room ended: ${alive}\n`);
    expect(alive).toBe(false);
  }, 30_000);

  it('is gone once the platform stops, and no cgroup of its server is left', async () => {
    const { grandchild } = await createDaemonizing('daemonizing');
    const cgroups = cloud.fleet.cgroupDirectory;
    stopped = true;
    expect(await test.stop()).toEqual([]);
    process.stdout.write(`grandchild alive after the platform stopped: ${processTreeAlive(grandchild)}\n`);
    expect(processTreeAlive(grandchild)).toBe(false);
    expect(cgroups === undefined || !existsSync(cgroups)).toBe(true);
  }, 30_000);
});
