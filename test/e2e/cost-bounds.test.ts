import { readFileSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createDocumentClient, createSqsClient } from '../../core/infra/aws-clients';
import { dynamoRoomStore } from '../../core/rooms/dynamo-room-store';
import type { LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Cost bounds on the local cloud (DynamoDB Local, the SQS emulator, the real controller
 * sidecar and the protocol fixture game): the sweeper ends empty rooms and rooms past their
 * lifetime (the game gets `shutdown`, the process is stopped, the room is closed, not failed),
 * the running-server cap answers 503 NO_HEALTHY_HOST, and servers and reply queues whose
 * room is not live are removed.
 */
const recordDir = mkdtempSync(join(tmpdir(), 'roomkeeper-cost-bounds-'));
const recordOf = (name: string) => join(recordDir, `${name}.jsonl`);
const game = (name: string, extra: Record<string, unknown>) => ({
  gameId: name,
  version: '1',
  configuration: {
    binary: fixtureGame,
    args: ['ok'],
    maxPlayers: 4,
    spawnTimeoutS: 10,
    env: { PROTOCOL_GAME_RECORD: recordOf(name) },
    ...extra,
  },
});

let test: TestCloud;
let cloud: LocalCloud;
let call: ReturnType<typeof jsonClient>;
let token: string;
let sqs: SQSClient;
const previousGrace = process.env.ORPHAN_GRACE_S;

beforeAll(async () => {
  // Orphans are ended after 2 s here (300 s by default).
  process.env.ORPHAN_GRACE_S = '2';
  test = await startTestCloud(
    [
      // The creator's reservation expires 1 s after `inited`; 2 s later the empty room ends.
      game('empty', { reservationTimeoutS: 1, emptyRoomGraceS: 2 }),
      // Never empty within the test (an hour's grace), but it may live 6 s only.
      game('short', { reservationTimeoutS: 600, emptyRoomGraceS: 3600, maxLifetimeS: 6 }),
      game('capped', { reservationTimeoutS: 600, maxServers: 2 }),
      game('orphan', { reservationTimeoutS: 600 }),
    ],
    {
      sidecar: { heartbeatIntervalS: 0.5, statusIntervalS: 0.5, statusTimeoutS: 1 },
      heartbeatTimeoutS: 3,
      sweepIntervalMs: 500,
    },
  );
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: cloud.sqs.endpoint });
}, 60_000);

afterAll(async () => {
  if (previousGrace === undefined) delete process.env.ORPHAN_GRACE_S;
  else process.env.ORPHAN_GRACE_S = previousGrace;
  sqs?.destroy();
  expect(await test?.stop()).toEqual([]);
});

const create = (gameId: string) => call('POST', '/v1/rooms', { token, body: { gameId, version: '1', settings: {} } });

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const roomOf = async (roomId: string) => (await call('GET', `/v1/rooms/${roomId}`, { token })).body.room;
const servedRooms = async () => (await cloud.fleet.listServers()).map((s) => s.roomId);
const records = (name: string): { event: string; method?: string; params?: Record<string, unknown> }[] =>
  existsSync(recordOf(name))
    ? readFileSync(recordOf(name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    : [];

describe('cost bounds on the local fleet', () => {
  it('ends a ready room left empty for its grace: the game gets shutdown, its process stops, the room is closed', async () => {
    const created = await create('empty');
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId;
    expect(await servedRooms()).toContain(roomId);

    const room = await eventually(
      () => roomOf(roomId),
      (r) => r.state !== 'ready',
    );
    expect(room).toMatchObject({ state: 'closed' });
    expect(room.failureReason).toBeUndefined();
    expect(await eventually(servedRooms, (rooms) => !rooms.includes(roomId))).not.toContain(roomId);
    const shutdown = records('empty').find((r) => r.event === 'request' && r.method === 'shutdown');
    expect(shutdown?.params).toMatchObject({ graceS: expect.any(Number) });
    expect(records('empty').some((r) => r.event === 'exit')).toBe(true);
  }, 30_000);

  it('ends a room past its maximum lifetime although a player still holds a slot', async () => {
    const created = await create('short');
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId;
    // Still live shortly after creation: the creator's reservation holds it.
    expect((await roomOf(roomId)).state).toBe('ready');

    const room = await eventually(
      () => roomOf(roomId),
      (r) => r.state !== 'ready',
    );
    expect(room).toMatchObject({ state: 'closed', players: 1 });
    expect(await eventually(servedRooms, (rooms) => !rooms.includes(roomId))).not.toContain(roomId);
    expect(records('short').some((r) => r.event === 'request' && r.method === 'shutdown')).toBe(true);
  }, 30_000);

  it('starts exactly as many servers as the configuration allows out of parallel creates; the others get 503 NO_HEALTHY_HOST', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => create('capped')));

    const started = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 503);
    expect(started).toHaveLength(2);
    expect(refused).toHaveLength(4);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({
        code: 'NO_HEALTHY_HOST',
        message: expect.stringContaining('maximum of 2'),
      });
    }
    const capped = (await cloud.fleet.listServers()).filter((s) =>
      started.some((a) => a.body.room.roomId === s.roomId),
    );
    expect(capped).toHaveLength(2);
  }, 30_000);

  it('stops a server whose room is no longer live, and deletes a reply queue left without a room', async () => {
    const created = await create('orphan');
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId;
    // The room ends without its task being stopped (a StopTask that never happened).
    const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: cloud.dynamodb.endpoint });
    await dynamoRoomStore(db, cloud.tableName).markFailed(roomId, 'sidecar-lost', new Date());
    db.destroy();
    const prefix = 'roomkeeper-local-reply-';
    const { QueueUrl: leftover } = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}ghost-room` }));

    expect(await eventually(servedRooms, (rooms) => !rooms.includes(roomId))).not.toContain(roomId);
    const queues = async () => (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls ?? [];
    expect(await eventually(queues, (urls) => !urls.includes(leftover ?? ''))).not.toContain(leftover);
  }, 30_000);
});
