import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import * as z from 'zod';
import { createRoom, createRoomkeeperClient, dataOf } from '../../client';
import type { CliIo } from '../../cli/context';
import { program, run } from '../../cli/roomkeeper';
import { banSchema } from '../../core/abuse/bans';
import { sessionRoomViewSchema } from '../../core/rooms/view-schema';
import { assertMatchesOpenApi } from '../helpers/openapi-contract';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * The `roomkeeper` CLI against a local cloud this test starts: `--json` outputs checked
 * against the schemas (the zod schemas of docs/api.md's shapes, and docs/openapi.json for each
 * command's route), the documented exit codes, and `--help` on every command.
 */
const root = join(__dirname, '../..');
let test: TestCloud;
let home: string;
let roomId: string;

beforeAll(async () => {
  test = await startTestCloud(
    [{ gameId: 'cli-game', version: '1', configuration: { binary: fixtureGame, maxPlayers: 4 } }],
    {},
    {
      templates: [
        {
          name: 'cli-duel',
          template: { gameId: 'cli-game', version: '1', constants: { maxMembers: 2, visibility: 'open' } },
        },
      ],
    },
  );
  home = mkdtempSync(join(tmpdir(), 'roomkeeper-cli-home-'));
  const api = createRoomkeeperClient({ baseUrl: test.cloud.apiUrl });
  const token = dataOf(await api.POST('/v1/dev/tokens', { body: { account: 'alice' } })).access_token;
  const created = await createRoom(createRoomkeeperClient({ baseUrl: test.cloud.apiUrl, token }), {
    template: 'cli-duel',
  });
  roomId = created.room.roomId;
}, 60_000);

afterAll(async () => {
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
  expect(await test?.stop()).toEqual([]);
});

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI in this process, against the test's cloud unless `env` says otherwise. */
async function cli(
  argv: string[],
  env: Record<string, string> = {},
  signal = new AbortController().signal,
  onStdout: (text: string) => void = () => undefined,
) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
      onStdout(text);
    },
    stderr: (text) => (stderr += text),
    env: { HOME: home, ROOMKEEPER_URL: test.cloud.apiUrl, ...env },
    now: () => new Date(),
    stderrIsTTY: false,
    signal,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr } satisfies Ran;
}

const json = (ran: Ran): unknown => {
  expect(ran).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(ran.stdout);
};

/** A command's `--json` is the body its route answered: documented there, field for field. */
const documented = (method: string, path: string, body: unknown) => {
  // A room answer's ETag header is its change number: the CLI prints the body only.
  const room = (body as { room?: { changeNumber?: number } }).room;
  const headers: Record<string, string> = room ? { etag: `"${room.changeNumber}"` } : {};
  assertMatchesOpenApi({ method, path, status: 200, headers, body });
};

it('rooms list --json prints { "rooms": [ room view, … ] }, and a table for people', async () => {
  const listed = z
    .strictObject({ rooms: z.array(sessionRoomViewSchema) })
    .parse(json(await cli(['rooms', 'list', '--json'])));

  expect(listed.rooms.map((r) => r.roomId)).toContain(roomId);
  documented('GET', '/v1/admin/rooms', listed);
  const filtered = z
    .strictObject({ rooms: z.array(sessionRoomViewSchema) })
    .parse(json(await cli(['rooms', 'list', '--template', 'nope', '--json'])));
  expect(filtered.rooms).toEqual([]);
  expect((await cli(['rooms', 'list'])).stdout).toContain(roomId);
});

it('prints each read as its route answers it (--json)', async () => {
  const room = json(await cli(['rooms', 'get', roomId, '--json']));
  z.strictObject({ room: sessionRoomViewSchema.loose() }).parse(room);
  documented('GET', `/v1/rooms/${roomId}`, room);
  const reads: [string[], string][] = [
    [['members', 'list', roomId], `/v1/rooms/${roomId}/members`],
    [['configs', 'list'], '/v1/admin/games'],
    [['configs', 'get', 'cli-game', '1'], '/v1/admin/games/cli-game/versions/1'],
    [['templates', 'list'], '/v1/admin/templates'],
    [['templates', 'get', 'cli-duel'], '/v1/admin/templates/cli-duel'],
    [['hosts', 'list'], '/v1/admin/hosts'],
    [['hosts', 'get', 'local-1'], '/v1/admin/hosts/local-1'],
    [['regions', 'list'], '/v1/admin/regions'],
    [['pool'], '/v1/admin/pool'],
    [['queues', 'list'], '/v1/admin/queues'],
    [['history', '--room', roomId], '/v1/admin/history'],
  ];
  for (const [argv, path] of reads) documented('GET', path, json(await cli([...argv, '--json'])));
});

it('adds, reads and lifts a ban, and installs a configuration and a template from files', async () => {
  const added = json(await cli(['bans', 'add', 'mallory', '--reason', 'griefing', '--expires-in', '1d', '--json']));
  expect(z.strictObject({ ban: banSchema.strict() }).parse(added).ban).toMatchObject({
    account: 'mallory',
    reason: 'griefing',
  });
  documented('GET', '/v1/admin/bans/mallory', json(await cli(['bans', 'get', 'mallory', '--json'])));
  expect(await cli(['bans', 'remove', 'mallory'])).toMatchObject({ code: 0, stdout: 'lifted the ban on mallory\n' });
  expect(await cli(['bans', 'get', 'mallory'])).toMatchObject({ code: 1 });

  const file = join(home, 'catalog.json');
  writeFileSync(
    file,
    JSON.stringify({
      games: [{ gameId: 'cli-put', version: '2', configuration: { binary: fixtureGame, maxPlayers: 2 } }],
      templates: [{ name: 'cli-put', template: { constants: { maxMembers: 3, visibility: 'open' } } }],
    }),
  );
  const configs = json(await cli(['configs', 'put', file, '--json'])) as { configurations: unknown[] };
  expect(configs.configurations).toEqual([expect.objectContaining({ gameId: 'cli-put', version: '2' })]);
  const templates = json(await cli(['templates', 'put', file, '--json'])) as { templates: unknown[] };
  expect(templates.templates).toEqual([expect.objectContaining({ name: 'cli-put', hosting: 'peerHosted' })]);
});

it('follows a room over the live socket until it is closed, then the close is a 409', async () => {
  const api = createRoomkeeperClient({ baseUrl: test.cloud.apiUrl });
  const token = dataOf(await api.POST('/v1/dev/tokens', { body: { account: 'bob' } })).access_token;
  const { room } = await createRoom(createRoomkeeperClient({ baseUrl: test.cloud.apiUrl, token }), {
    template: 'cli-duel',
  });

  let printed: () => void = () => undefined;
  const watchStarted = new Promise<void>((resolve) => (printed = resolve));
  const watching = cli(['rooms', 'watch', room.roomId, '--json'], {}, undefined, () => printed());
  const tail = new AbortController();
  let subscribed: () => void = () => undefined;
  const tailStarted = new Promise<void>((resolve) => (subscribed = resolve));
  const tailing = cli(['tail', room.roomId, '--json'], {}, tail.signal, (text) => {
    if (text.includes('"subscribed"')) subscribed();
  });
  // Close the room only once both follow it.
  await Promise.all([watchStarted, tailStarted]);
  const closed = json(await cli(['rooms', 'close', room.roomId, '--json']));
  documented('POST', `/v1/admin/rooms/${room.roomId}/close`, closed);
  const watched = await watching;
  tail.abort();
  const tailed = await tailing;

  const lines = watched.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(watched.code).toBe(0);
  expect(lines[0]).toMatchObject({ room: { roomId: room.roomId, state: 'ready' } });
  expect(lines.at(-1)).toMatchObject({ ended: { type: 'ended', roomId: room.roomId, reason: 'closed' } });
  expect(tailed.code).toBe(130);
  expect(tailed.stdout).toContain('"type":"ended"');
  expect(await cli(['rooms', 'close', room.roomId])).toMatchObject({ code: 1 });
});

describe('exit codes', () => {
  it('1: the API answered an error, its code and message on stderr', async () => {
    const ran = await cli(['rooms', 'get', 'no-such-room']);
    expect(ran).toMatchObject({ code: 1, stdout: '' });
    expect(ran.stderr).toMatch(/^roomkeeper: NOT_FOUND \(404\): /);
    const player = dataOf(
      await createRoomkeeperClient({ baseUrl: test.cloud.apiUrl }).POST('/v1/dev/tokens', { body: { account: 'eve' } }),
    ).access_token;
    expect((await cli(['rooms', 'list'], { ROOMKEEPER_TOKEN: player })).stderr).toMatch(/FORBIDDEN \(403\)/);
  });

  it('2: usage (bad option, unknown command, unreadable file, unknown profile, no token for a remote API)', async () => {
    for (const argv of [
      ['rooms', 'list', '--state', 'closed'],
      ['rooms', 'frobnicate'],
      ['configs', 'put', join(home, 'missing.json')],
      ['--profile', 'nope', 'rooms', 'list'],
      ['--url', 'https://api.example.invalid', 'rooms', 'list'],
    ])
      expect(await cli(argv)).toMatchObject({ code: 2, stdout: '' });
  });

  it('3: the API cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const ran = await cli(['rooms', 'list'], { ROOMKEEPER_URL: url });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain(`cannot reach ${url}`);
  });

  it('reads url and token from a profile', async () => {
    const admin = dataOf(
      await createRoomkeeperClient({ baseUrl: test.cloud.apiUrl }).POST('/v1/dev/tokens', {
        body: { account: 'ops', scopes: ['admin'] },
      }),
    ).access_token;
    mkdirSync(join(home, '.config', 'roomkeeper'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'roomkeeper', 'profiles.json'),
      JSON.stringify({ staging: { url: test.cloud.apiUrl.replace('127.0.0.1', 'localhost'), token: admin } }),
    );
    const ran = await cli(['--profile', 'staging', 'regions', 'list', '--json'], { ROOMKEEPER_URL: '' });
    expect(json(ran)).toMatchObject({ regions: [expect.objectContaining({ name: 'local' })] });
    // The profile names its URL: ROOMKEEPER_URL does not send its token elsewhere, --url elsewhere is refused.
    const elsewhere = 'https://api.example.invalid';
    const picked = await cli(['--profile', 'staging', 'regions', 'list', '--json'], { ROOMKEEPER_URL: elsewhere });
    expect(picked.code).toBe(0);
    const refused = await cli(['--profile', 'staging', '--url', elsewhere, 'regions', 'list'], { ROOMKEEPER_URL: '' });
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain(`token is for ${test.cloud.apiUrl.replace('127.0.0.1', 'localhost')}`);
  });

  it('never sends a token over plain http to a host that is not this machine', async () => {
    const ran = await cli(['--url', 'http://192.0.2.1:3000', 'rooms', 'list'], { ROOMKEEPER_TOKEN: 'secret' });
    expect(ran).toMatchObject({ code: 2, stdout: '' });
    expect(ran.stderr).toContain('over plain http');
  });
});

/** Every command and subcommand of the program, as argv. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

it('answers --help on every command', async () => {
  const paths = commandPaths(program({ stdout: () => undefined, stderr: () => undefined } as unknown as CliIo));
  expect(paths.map((p) => p.join(' '))).toEqual(
    expect.arrayContaining(['rooms list', 'queues redrive', 'tail', 'hash']),
  );
  for (const path of paths) {
    const ran = await cli([...path, '--help']);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toContain(`Usage: roomkeeper ${path.join(' ')}`);
  }
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The CLI in its own process: `npx roomkeeper …` as a user runs it, or its bin straight (signals reach it). */
function spawned(command: string, args: string[], until?: string): Promise<Ran> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ROOMKEEPER_URL: test.cloud.apiUrl, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until !== undefined && stdout.includes(until)) child.kill('SIGINT');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

it('runs as `npx roomkeeper`: rooms list --json, and 130 when interrupted', async () => {
  const listed = await spawned('npx', ['roomkeeper', 'rooms', 'list', '--json']);
  const rooms = z.strictObject({ rooms: z.array(sessionRoomViewSchema) }).parse(json(listed)).rooms;
  expect(rooms.length).toBeGreaterThan(0);

  const watched = await spawned(process.execPath, ['bin/roomkeeper.js', 'rooms', 'watch', '--json'], '"added"');
  expect(watched).toMatchObject({ code: 130, stderr: '' });
}, 60_000);
