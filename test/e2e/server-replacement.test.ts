import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { processControllerEvents } from '../../lambdas/queue/controller-events';
import { platform } from '../../lambdas/dependencies';
import type { ControllerRequest } from '../../core/protocol/controller-messages';
import { jsonClient } from '../helpers/http';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { controllerQueueEvent, SidecarChannelDouble } from '../helpers/sidecar-channel';

/**
 * A dedicated `migrateHost` room whose game server dies mid-game, on the local cloud with the
 * sample game: a replacement server comes up with the state the dead one saved, the members
 * keep their seats and get new keys by joining again, nobody else gets in, and the dead
 * server's late messages change nothing.
 */
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
const sockets: WebSocket[] = [];

const tokenFor = async (account: string, scopes?: string[]) =>
  (await call('POST', '/v1/dev/tokens', { body: { account, ...(scopes ? { scopes } : {}) } })).body
    .access_token as string;

beforeAll(async () => {
  test = await startTestCloud([
    {
      gameId: 'keeper',
      version: '1',
      configuration: { binary: sampleGame, maxPlayers: 4, spawnTimeoutS: 20, env: { SAMPLE_GAME_HOST: '127.0.0.1' } },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
  const put = await call('PUT', '/v1/admin/templates/kept', {
    token: await tokenFor('ops', ['admin']),
    body: { gameId: 'keeper', version: '1', constants: { maxMembers: 2, visibility: 'open', migrateHost: true } },
  });
  expect(put.status).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  expect(await test?.stop()).toEqual([]);
});

interface Reservation {
  readonly key: string;
  readonly host: string;
  readonly ports: number[];
}

/** A player in the sample game: connects, sends its key, and collects what the room sends. */
async function play(reservation: Reservation) {
  const socket = new WebSocket(`ws://${reservation.host}:${reservation.ports[0]}`);
  sockets.push(socket);
  const messages: Record<string, unknown>[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(reservation.key);
  const next = async (type: string) => {
    await eventually(async () => messages.some((m) => m.type === type));
    return messages.find((m) => m.type === type) as Record<string, unknown>;
  };
  return { socket, messages, next };
}

async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const read = async (roomId: string) => {
  const found = await platform().rooms.read(roomId);
  if (!found) throw new Error(`room ${roomId} is gone`);
  return found;
};

/** The game process the room's sidecar started (the sample game runs as one process). */
function gamePid(roomId: string): number {
  const tasks = (test.cloud.fleet as unknown as { tasks: Map<string, { child: { pid: number } }> }).tasks;
  const sidecar = tasks.get(`local:${roomId}`)?.child.pid;
  const children = readFileSync(`/proc/${sidecar}/task/${sidecar}/children`, 'utf8').trim().split(/\s+/);
  return Number(children[0]);
}

it('replaces a dead game server: saved state restored, members re-seated with new keys, no over-fill, the old server refused', async () => {
  const alice = await tokenFor('alice');
  const bob = await tokenFor('bob');
  const created = await call('POST', '/v1/rooms', { token: alice, body: { template: 'kept' } });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;
  const bobJoin = await call('POST', `/v1/rooms/${roomId}/join`, { token: bob });
  expect(bobJoin.status).toBe(200);
  const first = await play(created.body.reservation as Reservation);
  await first.next('welcome');
  await play(bobJoin.body.reservation as Reservation).then((p) => p.next('welcome'));
  first.socket.send('before the crash');
  await eventually(async () => (await read(roomId)).saved?.epoch === 1);
  // The server's state is for its replacement: a player cannot read it (it may hold others' hands).
  const peek = await call('GET', `/v1/rooms/${roomId}/state`, { token: bob });
  expect([peek.status, peek.body.error?.code]).toEqual([403, 'FORBIDDEN']);

  const killedAt = Date.now();
  process.kill(gamePid(roomId), 'SIGKILL');
  await eventually(async () => (await read(roomId)).room.host?.epoch === 2);
  await eventually(async () => (await read(roomId)).room.state === 'ready');
  const replaced = await read(roomId);
  const ms = Date.parse(replaced.room.readyAt ?? '') - (replaced.room.host?.seenAt ?? 0);
  const fromKill = Date.parse(replaced.room.readyAt ?? '') - killedAt;
  process.stdout.write(
    `dedicated replacement (cold spawn): death seen → replacement's inited ${ms} ms; kill → inited ${fromKill} ms\n`,
  );
  // Both members kept their seats, without a key: the old server's keys mean nothing now.
  expect(replaced.room.players).toBe(2);
  expect(Object.values(replaced.doc.members).map((m) => [m.s, m.k])).toEqual([
    [0, undefined],
    [0, undefined],
  ]);
  // The replacement's sidecar reads a queue of its own epoch: SQS would refuse the first one's
  // name for 60 s after that sidecar deleted it. The first one's queue went with its sidecar.
  const prefix = `${platform().config.replyQueuePrefix}${roomId}`;
  const queues = async () =>
    ((await platform().sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls ?? []).map((url) =>
      url.slice(url.lastIndexOf('/') + 1),
    );
  await eventually(async () => (await queues()).length === 1);
  expect(await queues()).toEqual([`${prefix}-e2`]);
  // Nobody else gets a seat the members hold.
  const carol = await call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenFor('carol') });
  expect([carol.status, carol.body.error?.code]).toEqual([409, 'ROOM_FULL']);

  // Joining again re-keys the member's own seat, on the replacement's port.
  const again = await call('POST', `/v1/rooms/${roomId}/join`, { token: alice });
  expect(again.status).toBe(200);
  expect(again.body.reservation.key).not.toBe(created.body.reservation.key);
  const back = await play(again.body.reservation as Reservation);
  expect(await back.next('welcome')).toMatchObject({
    account: 'alice',
    history: [{ from: 'alice', text: 'before the crash' }],
  });
  expect((await read(roomId)).room.players).toBe(2);

  // The dead server's late messages (epoch 1) change nothing.
  const channel = new SidecarChannelDouble();
  const sentAt = new Date().toISOString();
  const late: ControllerRequest[] = [
    { type: 'heartbeat', roomId, sentAt, epoch: 1 },
    { type: 'exited', roomId, sentAt, epoch: 1, reason: 'crashed', exitCode: null, signal: 'SIGKILL' },
  ];
  const before = await read(roomId);
  const bodies = await Promise.all(late.map((message) => channel.seal(message)));
  await processControllerEvents(controllerQueueEvent([roomId, roomId], bodies));
  const after = await read(roomId);
  expect(after.room).toMatchObject({
    state: 'ready',
    host: { epoch: 2 },
    lastHeartbeatAt: before.room.lastHeartbeatAt,
  });
}, 60_000);
