import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';

/**
 * `npm run play` (scripts/sample-player.ts) in a real process against a stand-in room: when
 * its input ends (Ctrl-D, or a pipe that closes) it leaves the room and exits, after the
 * room's answer to its key, so `echo hi | npm run play -- …` shows whether it got in.
 */
const root = join(__dirname, '../..');

interface Room {
  readonly port: number;
  readonly received: string[];
  close(): Promise<void>;
}

/** Answers the key with a welcome (after `welcomeAfterMs`), takes chat lines, never closes on its own. */
async function standInRoom(welcomeAfterMs = 0): Promise<Room> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const received: string[] = [];
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      received.push(String(data));
      if (received.length === 1) setTimeout(() => socket.send('{"type":"welcome","account":"alice"}'), welcomeAfterMs);
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs the player with this input piped in; resolves with its exit code and output. */
function play(port: number, input: string): Promise<{ code: number | null; output: string }> {
  const player = spawn('npm', ['run', '--silent', 'play', '--', '--port', String(port), '--key', 'key-1'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own group: npm, its shell and tsx's node all go if it hangs.
    detached: true,
  });
  let output = '';
  player.stdout.on('data', (c: Buffer) => (output += c.toString()));
  player.stderr.on('data', (c: Buffer) => (output += c.toString()));
  player.stdin.end(input);
  return new Promise((resolve) => {
    // A player still running long after its input ended is the bug: stop it and say so.
    const hang = setTimeout(() => {
      process.kill(-(player.pid as number), 'SIGKILL');
      resolve({ code: null, output: `${output}\n(still running 15 s after its input ended)` });
    }, 15_000);
    player.once('exit', (code) => {
      clearTimeout(hang);
      resolve({ code, output });
    });
  });
}

let room: Room | undefined;
afterEach(() => room?.close());

it('exits when its piped input ends: key, chat, then it leaves the room (1000)', async () => {
  room = await standInRoom();

  const { code, output } = await play(room.port, 'hello\n');

  expect(output).toContain('"type":"welcome"');
  expect(output).toContain('connection closed (1000: input ended)');
  expect(code).toBe(0);
  expect(room.received).toEqual(['key-1', 'hello']);
}, 30_000);

it("waits for the room's answer to its key before leaving, when the input ends first", async () => {
  room = await standInRoom(500);

  const { code, output } = await play(room.port, '');

  expect(output.indexOf('"type":"welcome"')).toBeGreaterThanOrEqual(0);
  expect(output.indexOf('"type":"welcome"')).toBeLessThan(output.indexOf('connection closed (1000'));
  expect(code).toBe(0);
}, 30_000);
