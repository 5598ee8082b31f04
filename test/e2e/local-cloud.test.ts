import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../local/free-port';
import { checkedFetch, healthStatus } from '../helpers/http';
import { openLive, refusedStatus } from '../helpers/live-client';

/**
 * `npm start` as a user runs it: the real CLI in its own process, started, probed over
 * HTTP, stopped with SIGTERM, and checked for anything it left running.
 */
const root = join(__dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');

interface RunningCloud {
  readonly process: ChildProcess;
  readonly apiUrl: string;
  readonly marker: string;
  readonly readyInMs: number;
  output(): string;
}

function processesWithMarker(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) pids.push(Number(entry));
    } catch {
      // Exited while we looked, or not ours to read.
    }
  }
  return pids;
}

async function startCloud(port: number): Promise<RunningCloud> {
  const marker = `ROOMKEEPER_E2E_MARKER=${randomUUID()}`;
  const [name, value] = marker.split('=') as [string, string];
  const startedAt = Date.now();
  const child = spawn(tsx, ['local/main.ts', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, [name]: value, POWERTOOLS_LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const apiUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the local cloud exited during start-up:\n${output}`);
    if (Date.now() - startedAt > 30_000) throw new Error(`the local cloud was not healthy within 30 s:\n${output}`);
    const status = await healthStatus(apiUrl);
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { process: child, apiUrl, marker: value, readyInMs: Date.now() - startedAt, output: () => output };
}

async function stopCloud(cloud: RunningCloud): Promise<number> {
  const stoppedAt = Date.now();
  const exited = new Promise((resolve) => cloud.process.once('exit', resolve));
  cloud.process.kill('SIGTERM');
  await exited;
  // The JVM's process group is ended by the CLI; give the kernel a moment to reap it.
  for (let i = 0; i < 50 && processesWithMarker(cloud.marker).length > 0; i++)
    await new Promise((r) => setTimeout(r, 100));
  return Date.now() - stoppedAt;
}

describe('npm start (the local cloud CLI)', () => {
  let cloud: RunningCloud | undefined;
  afterEach(async () => {
    if (cloud && cloud.process.exitCode === null) await stopCloud(cloud);
  });

  it('starts healthy, serves the contract, and stops within 5 s leaving no process behind; a second start works', async () => {
    const port = await freePort();
    cloud = await startCloud(port);
    process.stdout.write(`local cloud healthy after ${cloud.readyInMs} ms (limit 30000)\n`);
    expect(cloud.output()).toContain(`API            ${cloud.apiUrl}`);
    expect(processesWithMarker(cloud.marker).length).toBeGreaterThanOrEqual(2); // node + java at least

    const anonymous = await checkedFetch(`${cloud.apiUrl}/v1/rooms/x`);
    expect([anonymous.status, ((await anonymous.json()) as any).error.code]).toEqual([401, 'UNAUTHORIZED']);
    const issued = (await (
      await checkedFetch(`${cloud.apiUrl}/v1/dev/tokens`, { method: 'POST', body: '{"account":"alice"}' })
    ).json()) as any;
    const missing = await checkedFetch(`${cloud.apiUrl}/v1/rooms/x`, {
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect([missing.status, ((await missing.json()) as any).error.code]).toEqual([404, 'NOT_FOUND']);
    // The committed configuration file's templates are installed at start, like its games.
    const admin = (await (
      await checkedFetch(`${cloud.apiUrl}/v1/dev/tokens`, {
        method: 'POST',
        body: '{"account":"ops","scopes":["admin"]}',
      })
    ).json()) as any;
    const template = await checkedFetch(`${cloud.apiUrl}/v1/admin/templates/sample-duel`, {
      headers: { authorization: `Bearer ${admin.access_token}` },
    });
    expect([template.status, ((await template.json()) as any).template?.gameId]).toEqual([200, 'sample']);
    // Its own output is tailed for GET /v1/dev/logs: the start-up banner is in it.
    const logs = await checkedFetch(`${cloud.apiUrl}/v1/dev/logs?limit=1000`, {
      headers: { authorization: `Bearer ${admin.access_token}` },
    });
    const lines = ((await logs.json()) as any).lines.map((line: { message: string }) => line.message);
    expect(lines.join('\n')).toContain(`API            ${cloud.apiUrl}`);
    const malformed = await checkedFetch(`${cloud.apiUrl}/v1/dev/tokens`, { method: 'POST', body: '{"account":' });
    expect([malformed.status, ((await malformed.json()) as any).error.code]).toEqual([400, 'BAD_REQUEST']);
    // The live-session socket shares the API's port: a missing token is refused before the upgrade.
    const liveUrl = `${cloud.apiUrl.replace(/^http/, 'ws')}/v1/live`;
    expect(cloud.output()).toContain(`Live sockets   ${liveUrl}`);
    expect(await refusedStatus(liveUrl)).toBe(401);
    const socket = await openLive(liveUrl, issued.access_token);
    socket.send({ action: 'ping' });
    expect(await socket.next()).toEqual({ type: 'pong' });

    const stopMs = await stopCloud(cloud);
    // The stop closed the socket too.
    await socket.closed;
    process.stdout.write(`local cloud stopped in ${stopMs} ms (limit 5000)\n`);
    expect(stopMs).toBeLessThan(5_000);
    expect(processesWithMarker(cloud.marker)).toEqual([]);

    cloud = await startCloud(port);
    expect((await checkedFetch(`${cloud.apiUrl}/health`)).status).toBe(200);
    await stopCloud(cloud);
    expect(processesWithMarker(cloud.marker)).toEqual([]);
  }, 90_000);
});
