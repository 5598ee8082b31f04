import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../../local/free-port';
import { healthStatus, jsonClient } from '../helpers/http';
import { processesWithMarker, processTree, stillRunning, type ProcessRecord } from '../helpers/process-tree';

/**
 * `npm start` as a supervisor runs it: through npm, in its own process group, with its
 * output on pipes. Whatever signal ends it, and however, every process it started (the
 * node platform, DynamoDB Local's JVM, sidecars and their games) must be gone soon after.
 */
const root = join(__dirname, '../..');
/** How long everything may take to go after the signal. */
const goneWithinMs = 8_000;

interface NpmStart {
  readonly npm: ChildProcess;
  readonly apiUrl: string;
  readonly marker: string;
  output(): string;
}

async function npmStart(): Promise<NpmStart> {
  const port = await freePort();
  const marker = randomUUID();
  // Its own process group (and session), as a process manager starts a service.
  const npm = spawn('npm', ['start', '--', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, ROOMKEEPER_E2E_MARKER: marker, POWERTOOLS_LOG_LEVEL: 'INFO' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  npm.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const apiUrl = `http://127.0.0.1:${port}`;
  const startedAt = Date.now();
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited during start-up:\n${output}`);
    if (Date.now() - startedAt > 90_000) throw new Error(`npm start was not healthy within 90 s:\n${output}`);
    const status = await healthStatus(apiUrl);
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.stdout.write(`npm start healthy after ${Date.now() - startedAt} ms\n`);
  return { npm, apiUrl, marker, output: () => output };
}

/** A room of the sample game (local/roomkeeper.local.json), created through the API: a sidecar and a game run. */
async function createRoom(apiUrl: string): Promise<void> {
  const call = jsonClient(apiUrl);
  const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token as string;
  const created = await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
  expect([201, 202]).toContain(created.status);
}

/** Waits until none of `tree` runs and no process carries the marker; returns what is left. */
async function leftovers(tree: readonly ProcessRecord[], marker: string): Promise<string[]> {
  const deadline = Date.now() + goneWithinMs;
  for (;;) {
    const left = [
      ...stillRunning(tree).map((p) => `${p.pid} ${p.command}`),
      ...processesWithMarker(marker).map((pid) => `${pid} (marker)`),
    ];
    if (left.length === 0 || Date.now() > deadline) return [...new Set(left)];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function platformOf(tree: readonly ProcessRecord[]): ProcessRecord {
  const platform = tree.find((p) => p.command.includes('local/main.ts') && !p.command.startsWith('sh '));
  if (!platform) throw new Error(`no platform process in ${JSON.stringify(tree)}`);
  return platform;
}

function expectGameServersIn(tree: readonly ProcessRecord[]): void {
  expect(tree.some((p) => p.command.includes('controller.js'))).toBe(true);
  expect(tree.some((p) => p.command.includes('sample-game'))).toBe(true);
}

let running: { npm: ChildProcess; tree: ProcessRecord[] } | undefined;
afterEach(() => {
  // Whatever a failed test left: nothing may outlive the suite.
  if (!running) return;
  for (const p of stillRunning(running.tree)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  running = undefined;
});

describe('npm start stops everything it started', () => {
  it('on SIGTERM to the npm process', async () => {
    const cloud = await npmStart();
    const tree = processTree(cloud.npm.pid as number);
    running = { npm: cloud.npm, tree };
    expect(tree.some((p) => p.command.includes('DynamoDBLocal.jar'))).toBe(true);

    const signalledAt = Date.now();
    process.kill(cloud.npm.pid as number, 'SIGTERM');
    const left = await leftovers(tree, cloud.marker);
    process.stdout.write(`SIGTERM to npm: ${tree.length} processes gone in ${Date.now() - signalledAt} ms\n`);
    expect(left).toEqual([]);
  }, 120_000);

  it('on SIGHUP to the npm process (the terminal closed)', async () => {
    const cloud = await npmStart();
    const tree = processTree(cloud.npm.pid as number);
    running = { npm: cloud.npm, tree };

    const signalledAt = Date.now();
    process.kill(cloud.npm.pid as number, 'SIGHUP');
    const left = await leftovers(tree, cloud.marker);
    process.stdout.write(`SIGHUP to npm: ${tree.length} processes gone in ${Date.now() - signalledAt} ms\n`);
    expect(left).toEqual([]);
  }, 120_000);

  it('on SIGTERM to the whole process group with its output pipes closed at once, a game server running', async () => {
    const cloud = await npmStart();
    await createRoom(cloud.apiUrl);
    const tree = processTree(cloud.npm.pid as number);
    running = { npm: cloud.npm, tree };
    expectGameServersIn(tree);

    const signalledAt = Date.now();
    process.kill(-(cloud.npm.pid as number), 'SIGTERM');
    cloud.npm.stdout?.destroy();
    cloud.npm.stderr?.destroy();
    const left = await leftovers(tree, cloud.marker);
    process.stdout.write(
      `group SIGTERM, pipes closed: ${tree.length} processes gone in ${Date.now() - signalledAt} ms\n`,
    );
    expect(left).toEqual([]);
  }, 150_000);

  it('when the platform process is killed with SIGKILL (DynamoDB Local, the SQS emulator, sidecar and game die with it)', async () => {
    const cloud = await npmStart();
    await createRoom(cloud.apiUrl);
    const tree = processTree(cloud.npm.pid as number);
    running = { npm: cloud.npm, tree };
    expectGameServersIn(tree);
    expect(tree.some((p) => p.command.includes('sqs-emulator-process'))).toBe(true);

    const signalledAt = Date.now();
    process.kill(platformOf(tree).pid, 'SIGKILL');
    const left = await leftovers(tree, cloud.marker);
    process.stdout.write(`platform SIGKILLed: ${tree.length} processes gone in ${Date.now() - signalledAt} ms\n`);
    expect(left).toEqual([]);
  }, 150_000);
});
