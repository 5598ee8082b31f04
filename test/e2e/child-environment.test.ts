import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inheritedByChildren } from '../../local/child-environment';
import { dynamoDbLocalOwnEnvironment } from '../../local/dynamodb-local';
import { freePort } from '../../local/free-port';
import { healthStatus, jsonClient } from '../helpers/http';
import { processTree, stillRunning, type ProcessRecord } from '../helpers/process-tree';

/**
 * The attack of issue 26: a local game (same user) kills DynamoDB Local's JVM with kill -9,
 * waits for the platform to restart it, and reads the new JVM's /proc/<pid>/environ for the
 * signing keys. The platform runs as `npm start` runs it, a node process of its own (inside
 * jest, `process.env` is a per-test copy that child processes never see, which would hide
 * what a real platform process hands its children).
 */
const root = join(__dirname, '../..');

interface Platform {
  readonly child: ChildProcess;
  readonly apiUrl: string;
  output(): string;
}

let platform: Platform | undefined;
let seen: ProcessRecord[] = [];

async function startPlatform(): Promise<Platform> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr?.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  const apiUrl = `http://127.0.0.1:${port}`;
  if (!(await healthy(apiUrl, 90_000, child))) throw new Error(`the platform was not healthy within 90 s:\n${output}`);
  return { child, apiUrl, output: () => output };
}

async function healthy(apiUrl: string, timeoutMs: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    const status = await healthStatus(apiUrl);
    if (status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

const jvmOf = (pid: number) => processTree(pid).find((p) => p.command.includes('DynamoDBLocal.jar'));

/** What of a private signing key an environment gives away: a private JWK's `"d":`, or the variables that held one. */
function keyMaterialIn(environ: string): string[] {
  return ['"d":', 'DEV_SIGNING_JWK', 'TOKEN_SIGNING_JWK'].filter((secret) => environ.includes(secret));
}

const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'latin1');

beforeAll(async () => {
  platform = await startPlatform();
}, 120_000);

afterAll(async () => {
  if (!platform?.child.pid) return;
  const pid = platform.child.pid;
  seen.push(...processTree(pid));
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 8_000;
  while (stillRunning(seen).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const p of stillRunning(seen)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
});

describe('a DynamoDB Local JVM restarted after kill -9', () => {
  it('gets an explicit, minimal environment without any signing key', async () => {
    const { child, apiUrl } = platform as Platform;
    const killed = jvmOf(child.pid as number);
    expect(killed).toBeDefined();
    seen = processTree(child.pid as number);

    process.kill(killed?.pid as number, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    let restarted: ProcessRecord | undefined;
    while (Date.now() < deadline) {
      const jvm = jvmOf(child.pid as number);
      if (jvm && jvm.pid !== killed?.pid && (await healthy(apiUrl, 1_000, child))) {
        restarted = jvm;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(restarted).toBeDefined();
    seen.push(...processTree(child.pid as number));

    const environ = environOf(restarted?.pid as number);
    const names = environ
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.slice(0, entry.indexOf('=')));
    process.stdout.write(
      `restarted JVM ${restarted?.pid}: ${names.length} variables (${names.join(', ')}); key material: [${keyMaterialIn(environ).join(', ')}] (expected none)\n`,
    );
    expect(keyMaterialIn(environ)).toEqual([]);
    const allowed: readonly string[] = [...inheritedByChildren, ...Object.keys(dynamoDbLocalOwnEnvironment)];
    expect(names.filter((name) => !allowed.includes(name))).toEqual([]);
  }, 90_000);

  it('and no other process the platform runs then (SQS emulator, esbuild, a sidecar and its game) holds a signing key', async () => {
    const { child, apiUrl } = platform as Platform;
    const call = jsonClient(apiUrl);
    const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token as string;
    const created = await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
    expect(created.status).toBe(201);

    const below = processTree(child.pid as number).filter((p) => p.pid !== child.pid);
    seen.push(...below);
    expect(below.some((p) => p.command.includes('controller.js'))).toBe(true);
    expect(below.some((p) => p.command.includes('sample-game'))).toBe(true);
    const leaking = below.flatMap((p) => {
      try {
        const found = keyMaterialIn(environOf(p.pid));
        return found.length > 0 ? [`${p.command}: ${found.join(', ')}`] : [];
      } catch {
        return []; // Exited since the listing.
      }
    });
    process.stdout.write(`processes below the platform: ${below.length}; holding key material: ${leaking.length}\n`);
    expect(leaking).toEqual([]);
  }, 60_000);
});
