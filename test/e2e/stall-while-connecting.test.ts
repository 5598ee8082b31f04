import { join } from 'node:path';
import WebSocket from 'ws';
import { bundle } from '../../containers/build';
import { jsonClient } from '../helpers/http';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Issue 26: a 25 s DynamoDB stall while players connect. DynamoDB Local is paused (SIGSTOP)
 * just before one player per room opens its WebSocket to the sample game and sends its key,
 * so each room's `joined` is in flight through the stall. Ten rooms in one stall are the ten
 * repetitions. No healthy room may fail, and each player must be welcomed (its slot confirmed
 * by the platform) soon after the stall: the sample game calls a `joined` that got -32004
 * again with the same JSON-RPC id, so the platform knows the retry as the request it undid
 * (`abandoned`) or confirmed; a player the game turned away reconnects. A `joined` handed back for the queue's 60 s holds its room's
 * group, heartbeats included, and keeps every one of these players out for about a minute.
 * Default heartbeat settings (every 2 s, timeout 10 s), sweeps every 5 s, real sidecars,
 * games and consumer (the local SQS poller, with the deployed consumer timeout).
 */
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');
const rooms = 10;
const stallS = 25;
/** How soon after the stall each player must be in (the sidecar's own reply timeout is 20 s). */
const welcomeWithinS = 15;

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  await bundle('sample-game');
  test = await startTestCloud([
    {
      gameId: 'sample',
      version: '1',
      configuration: { binary: sampleGame, maxPlayers: 4, spawnTimeoutS: 20, env: { SAMPLE_GAME_HOST: '127.0.0.1' } },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
}, 90_000);

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  // A test that failed half way may leave DynamoDB Local paused.
  if (test) process.kill(test.cloud.dynamodb.pid, 'SIGCONT');
  expect(await test?.stop()).toEqual([]);
});

const tokenOf = async (account: string) =>
  (await call('POST', '/v1/dev/tokens', { body: { account } })).body.access_token as string;

/** Connects to the game and sends the key; resolves with the game's first answer: `welcome` or `error`/closed. */
function connect(host: string, port: number, key: string): Promise<'welcome' | 'refused'> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://${host}:${port}`);
    sockets.push(socket);
    socket.on('open', () => socket.send(key));
    socket.on('message', (data) => {
      const type = (JSON.parse(data.toString()) as { type?: string }).type;
      if (type === 'welcome') resolve('welcome');
      if (type === 'error') resolve('refused');
    });
    socket.on('close', () => resolve('refused'));
    socket.on('error', () => resolve('refused'));
  });
}

/** Keeps connecting with the key, as a player's client does, until welcomed or `limitMs` passes. */
async function connectUntilWelcomed(
  room: { host: string; port: number; key: string },
  first: Promise<'welcome' | 'refused'>,
  limitMs: number,
): Promise<number | undefined> {
  const deadline = Date.now() + limitMs;
  let answer = await first;
  while (answer !== 'welcome' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    let timer: NodeJS.Timeout | undefined;
    answer = await Promise.race([
      connect(room.host, room.port, room.key),
      new Promise<'refused'>((resolve) => (timer = setTimeout(() => resolve('refused'), deadline - Date.now()))),
    ]);
    clearTimeout(timer);
  }
  return answer === 'welcome' ? Date.now() : undefined;
}

/** A room of the sample game with its creator playing and one more player's reservation. */
async function roomWithReservation(i: number) {
  const owner = await tokenOf(`owner-${i}`);
  const created = await call('POST', '/v1/rooms', { token: owner, body: { gameId: 'sample', version: '1' } });
  expect(created.status).toBe(201);
  const { host, ports, key } = created.body.reservation;
  expect(await connect(host, ports[0], key)).toBe('welcome');
  const roomId = created.body.room.roomId as string;
  const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenOf(`player-${i}`) });
  expect(joined.status).toBe(200);
  const reservation = joined.body.reservation as { host: string; ports: number[]; key: string };
  return { roomId, owner, host: reservation.host, port: reservation.ports[0] as number, key: reservation.key };
}

type Prepared = Awaited<ReturnType<typeof roomWithReservation>>;

async function statesOf(prepared: readonly Prepared[]): Promise<{ state: string; failureReason?: string }[]> {
  return Promise.all(
    prepared.map(async (room) => (await call('GET', `/v1/rooms/${room.roomId}`, { token: room.owner })).body.room),
  );
}

/** Pauses DynamoDB Local for the stall, the players of `connecting` opening their sockets as it starts; resolves when it resumed. */
async function stallWhile(
  connecting: readonly Prepared[],
): Promise<{ resumedAt: number; first: Promise<'welcome' | 'refused'>[] }> {
  const dynamodb = test.cloud.dynamodb.pid;
  process.kill(dynamodb, 'SIGSTOP');
  try {
    const first = connecting.map((room) => connect(room.host, room.port, room.key));
    await new Promise((resolve) => setTimeout(resolve, stallS * 1000));
    return { resumedAt: Date.now(), first };
  } finally {
    process.kill(dynamodb, 'SIGCONT');
  }
}

/** Waits until `ms` after `since`. */
async function until(since: number, ms: number): Promise<void> {
  const wait = since + ms - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

const seconds = (at: number | undefined, since: number) => (at === undefined ? Infinity : (at - since) / 1000);
const shown = (s: number) => (Number.isFinite(s) ? `${s.toFixed(1)} s` : 'never');

describe('a DynamoDB stall while players connect', () => {
  it(`fails none of ${rooms} healthy rooms with a joined in flight through a ${stallS} s stall, and lets each player in soon after`, async () => {
    const prepared = await Promise.all(Array.from({ length: rooms }, (_, i) => roomWithReservation(i)));
    const { resumedAt, first } = await stallWhile(prepared);
    // Each player keeps trying with its key until the game welcomes it.
    const welcomedAt = await Promise.all(
      prepared.map((room, i) => connectUntilWelcomed(room, first[i]!, (welcomeWithinS + 20) * 1000)),
    );
    const delays = welcomedAt.map((at) => seconds(at, resumedAt));
    // Two heartbeat timeouts and several sweeps after the stall.
    await until(resumedAt, 22_000);
    const states = await statesOf(prepared);
    const failed = states.filter((s) => s.state !== 'ready');
    process.stdout.write(
      `DynamoDB stalled ${stallS} s with a joined in flight in each of ${rooms} rooms: ` +
        `${failed.length} healthy rooms failed (expected 0) ` +
        `[${failed.map((s) => `${s.state}/${s.failureReason ?? '-'}`).join(', ')}]; ` +
        `players welcomed ${delays.map(shown).join(', ')} after the stall (expected ≤ ${welcomeWithinS} s each)\n`,
    );
    expect(states.map((s) => [s.state, s.failureReason])).toEqual(prepared.map(() => ['ready', undefined]));
    expect(delays.filter((d) => d > welcomeWithinS)).toEqual([]);
  }, 180_000);
});
