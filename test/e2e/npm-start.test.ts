import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../local/free-port';
import { checkedFetch } from '../helpers/http';

/**
 * `npm start` as a new user runs it, in a terminal (its own process group, as the
 * terminal's foreground group), with standby servers and a browser game's origin allowed:
 * the root answers, the browser's preflight and calls get their CORS headers, every request
 * leaves one access log line, and Ctrl-C stops everything with no ERROR.
 */
const root = join(__dirname, '../..');
const standby = 2;
const gameOrigin = 'http://localhost:5173';

let npm: ChildProcess;
let apiUrl: string;
let output = '';
let exited: Promise<number | null>;
let scratch: string | undefined;

function configWithStandby(): string {
  scratch = mkdtempSync(join(tmpdir(), 'roomkeeper-npm-start-'));
  const file = JSON.parse(readFileSync(join(root, 'local/roomkeeper.local.json'), 'utf8')) as {
    games: { configuration: { binary: string; standby?: number } }[];
  };
  for (const game of file.games) {
    // Relative binaries are relative to the file: this copy lives elsewhere.
    game.configuration.binary = resolve(root, 'local', game.configuration.binary);
    game.configuration.standby = standby;
  }
  const path = join(scratch, 'roomkeeper.local.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

/** Rooms whose game has had `inited` accepted: the standby servers are ready when there are `standby`. */
function readyServers(): number {
  const lines = output.split('\n').filter((line) => line.includes('inited accepted'));
  return new Set(lines.map((line) => /"roomId":"([^"]+)"/.exec(line)?.[1])).size;
}

function accessLogLines(): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"component":"api-gateway"') && line.includes('"message":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const startedAt = Date.now();
  while (!done()) {
    if (npm.exitCode !== null) throw new Error(`npm start exited while waiting for ${what}:\n${output}`);
    if (Date.now() - startedAt > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  const args = ['start', '--', '--port', String(port), '--config', configWithStandby(), '--cors-origins', gameOrigin];
  npm = spawn('npm', args, {
    cwd: root,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  npm.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  exited = new Promise((done) => npm.once('exit', (code) => done(code)));
  await until(`${standby} ready standby servers`, () => readyServers() >= standby, 90_000);
}, 120_000);

afterAll(() => {
  try {
    process.kill(-(npm.pid as number), 'SIGKILL');
  } catch {
    // The whole group is gone already.
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

it('GET / names the service and its version and links to /health and the API document, which are served', async () => {
  const index = await checkedFetch(`${apiUrl}/`);
  expect(index.status).toBe(200);
  const body = (await index.json()) as { service: string; version: string; links: Record<string, string> };
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  expect(body).toMatchObject({ service: 'roomkeeper', version });

  expect((await checkedFetch(`${apiUrl}${body.links.health}`)).status).toBe(200);
  const document = (await (await checkedFetch(`${apiUrl}${body.links.openapi}`)).json()) as { openapi: string };
  expect(document.openapi).toMatch(/^3\./);
});

it("lets a browser game on an allowed origin call the API: its preflight, then the call's answer", async () => {
  // A preflight is answered by the gateway's CORS configuration, outside the document: the check lets it through.
  const preflight = await checkedFetch(`${apiUrl}/v1/dev/tokens`, {
    method: 'OPTIONS',
    headers: {
      origin: gameOrigin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(gameOrigin);
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');

  const issued = await checkedFetch(`${apiUrl}/v1/dev/tokens`, {
    method: 'POST',
    headers: { origin: gameOrigin, 'content-type': 'application/json' },
    body: '{"account":"browser-player"}',
  });
  expect(issued.status).toBe(200);
  expect(issued.headers.get('access-control-allow-origin')).toBe(gameOrigin);

  const elsewhere = await checkedFetch(`${apiUrl}/health`, { headers: { origin: 'https://elsewhere.example' } });
  expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
});

it('writes one structured access log line per request, without the token', async () => {
  const tokenResponse = await checkedFetch(`${apiUrl}/v1/dev/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"account":"alice"}',
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const rooms = await checkedFetch(`${apiUrl}/v1/rooms?gameId=sample`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const ids = [tokenResponse, rooms].map((response) => response.headers.get('apigw-requestid'));
  const linesOf = (id: string | null) => accessLogLines().filter((line) => line.requestId === id);
  await until('their access log lines', () => ids.every((id) => linesOf(id).length > 0), 5_000);

  expect(linesOf(ids[0]!)).toEqual([
    expect.objectContaining({ level: 'INFO', method: 'POST', route: 'POST /v1/dev/tokens', status: 200 }),
  ]);
  expect(linesOf(ids[1]!)).toEqual([
    expect.objectContaining({
      method: 'GET',
      route: 'GET /v1/rooms',
      status: rooms.status,
      latencyMs: expect.any(Number),
    }),
  ]);
  expect(output).not.toContain(token);
});

it('stops on Ctrl-C with standby servers running: exit code 0 and no ERROR line', async () => {
  expect(readyServers()).toBeGreaterThanOrEqual(standby);
  const readyOutput = output.length;

  // What a terminal's Ctrl-C does: SIGINT to every process of the foreground group at once.
  process.kill(-(npm.pid as number), 'SIGINT');
  const code = await exited;

  expect(output.slice(readyOutput)).toContain('stopping the local cloud');
  expect(output.split('\n').filter((line) => /"level":"ERROR"|\bERROR\b/.test(line))).toEqual([]);
  expect(code).toBe(0);
}, 30_000);
