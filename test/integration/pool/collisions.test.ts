import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PlatformBridge } from '../../../containers/controller/bridge';
import { createCommandRelay } from '../../../containers/controller/commands';
import { sqsCommandDelivery } from '../../../core/commands/delivery';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { ServerSlotStore } from '../../../core/gameservers/server-slot-store';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { createDocumentClient, createSqsClient } from '../../../core/infra/aws-clients';
import { childLogger } from '../../../core/infra/logger';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { assignThroughSidecar, sqsAssignAnswers } from '../../../core/pool/assign';
import { PoolStore, type PoolKey } from '../../../core/pool/pool-store';
import { WarmPool } from '../../../core/pool/warm-pool';
import { assignQueueName } from '../../../core/protocol/queue-names';
import { createRoom, type CreateRoomResult } from '../../../core/rooms/create';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { platform } from '../../../lambdas/dependencies';
import { aStandbyRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Issue 28's warm-pool guarantee on DynamoDB Local and the SQS emulator: creates in four
 * processes (each its own clients, cache and warm pool, as four Lambda instances) race for
 * one pool of five ready servers. Each server is a real sidecar bridge and command relay
 * (containers/controller) in front of a game that records the room it is handed; `assign`
 * goes the real way (sealed on the server's reply queue, answered on its assign queue).
 */
let test: TestPlatform;
const prefix = `rk-test-${randomUUID().slice(0, 8)}-`;
const log = childLogger('pool-collisions-test');

beforeAll(async () => {
  test = await startTestPlatform();
});
afterAll(() => test.close());

function configurationOf(gameId: string): GameServerConfiguration {
  return {
    gameId,
    version: '1',
    updatedAt: new Date().toISOString(),
    binary: '/bin/true',
    args: [],
    env: {},
    ports: 1,
    maxPlayers: 8,
    serverSettings: {},
    spawnTimeoutS: 30,
    reservationTimeoutS: 30,
    commands: [],
    serverScopes: [],
    standby: 5,
  };
}

/** Cold starts and stops, recorded: nothing really starts. */
class RecordingSpawner implements Spawner {
  readonly spawned: string[] = [];
  readonly stopped: { taskId: string; reason: string }[] = [];
  async spawn(request: SpawnRequest) {
    this.spawned.push(request.roomId);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop(taskId: string, reason: string) {
    this.stopped.push({ taskId, reason });
  }
}

/**
 * One ready standby server: its room and pool entry, and its sidecar's bridge and relay
 * (STANDBY=1) in front of a game that records every `assign` it is handed and accepts it.
 */
async function standbyServer(key: PoolKey, sqs: SQSClient) {
  const pool = new PoolStore(test.db, test.tableName);
  const room = aStandbyRoom(key);
  await dynamoRoomStore(test.db, test.tableName).createWithMember(room);
  await pool.addStarting(key, room.roomId, new Date());
  await pool.markReady(key, room.roomId);
  const bridge = new PlatformBridge({
    sqs,
    roomId: room.roomId,
    keys: await platform().sidecarKeys(room.roomId),
    requestQueueUrl: 'http://127.0.0.1:1/000000000000/unused.fifo',
    replyQueueName: `${prefix}${room.roomId}`,
    assignQueueName: assignQueueName(prefix, room.roomId),
    replyTimeoutMs: 1_000,
    pollWaitS: 1,
    log,
  });
  await bridge.createReplyQueue();
  const assignsReceived: unknown[] = [];
  const gameHanded: unknown[] = [];
  const relay = createCommandRelay({
    whitelist: [],
    standby: true,
    calls: {
      call: async (_method, params) => {
        gameHanded.push((params as { room_settings?: { map?: unknown } }).room_settings?.map);
        return { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'OK' } } };
      },
    },
    timeoutMs: 5_000,
    answer: (commandId, answer) => bridge.answerCommand(commandId, answer),
    answerAssign: (commandId, answer) => bridge.answerAssign(commandId, answer),
    log,
  });
  bridge.consume(
    (command) => {
      if (command.method === 'assign') assignsReceived.push(command.commandId);
      return relay(command);
    },
    () => undefined,
  );
  return { roomId: room.roomId, bridge, assignsReceived, gameHanded };
}

/**
 * One process: its own DynamoDB and SQS clients, its own cache, stores and warm pool. With a
 * `timeline`, every DynamoDB request's start and end and every `assign`'s send and answer are
 * written to it in the order they happen.
 */
function aProcess(configuration: GameServerConfiguration, spawner: Spawner, timeline?: string[]) {
  const endpoints = emulatorEndpoints();
  const db: DynamoDBDocumentClient = createDocumentClient({
    region: 'us-east-1',
    dynamodbEndpoint: endpoints.dynamodb,
  });
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: endpoints.sqs });
  db.middlewareStack.add(
    (next, context) => async (args) => {
      timeline?.push(`start ${String(context.commandName)}`);
      try {
        return await next(args);
      } finally {
        timeline?.push(`end ${String(context.commandName)}`);
      }
    },
    { step: 'initialize', name: 'timeline' },
  );
  const rooms = dynamoRoomStore(db, test.tableName);
  const p = platform();
  const keysFor = (roomId: string) => p.sidecarKeys(roomId);
  const queueUrl = queueUrlResolver(sqs);
  const assign = assignThroughSidecar({
    deliver: sqsCommandDelivery(sqs, prefix, keysFor, queueUrl),
    answers: sqsAssignAnswers(sqs, prefix, keysFor, queueUrl),
    newId: randomUUID,
  });
  const warmPool = new WarmPool({
    pool: new PoolStore(db, test.tableName),
    rooms,
    placement: p.placement,
    spawner,
    costs: { slots: new ServerSlotStore(db, test.tableName, (ms) => p.clock.sleep(ms)), defaults: p.config.costBounds },
    now: () => new Date(),
    newRoomId: randomUUID,
    mintServerToken: () => Promise.resolve('token'),
    assign: async (assignment) => {
      timeline?.push('assign sent');
      const outcome = await assign(assignment);
      timeline?.push('game answered');
      return outcome;
    },
    cache: new PlatformCache(),
  });
  const create = (account: string): Promise<CreateRoomResult> =>
    createRoom(
      {
        account,
        scopes: [],
        gameId: configuration.gameId,
        version: configuration.version,
        settings: { map: account },
        region: 'eu-west-1',
      },
      {
        rooms,
        configuration,
        spawner,
        now: () => new Date(),
        newRoomId: randomUUID,
        mintServerToken: () => Promise.resolve('token'),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        // A cold create answers Spawning after its first read: what is measured here is the pool.
        answerBy: new Date(0),
        warmPool,
      },
    );
  return {
    create,
    close: () => {
      db.destroy();
      sqs.destroy();
    },
  };
}

describe('the warm pool, 4 processes × 50 creates racing for 5 ready servers', () => {
  it('ends no server because creates collided: each game is told exactly its one winner, every other create starts cold', async () => {
    const configuration = configurationOf(`collide-${randomUUID().slice(0, 8)}`);
    const key = { gameId: configuration.gameId, version: configuration.version, region: 'eu-west-1' };
    const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
    const servers = await Promise.all(Array.from({ length: 5 }, () => standbyServer(key, sqs)));
    const spawner = new RecordingSpawner();
    const processes = Array.from({ length: 4 }, () => aProcess(configuration, spawner));
    const rooms = dynamoRoomStore(test.db, test.tableName);
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const account = `player-${i}`;
          return { account, result: await processes[i % 4]?.create(account) };
        }),
      );

      const warm = answers.filter((a) => a.result?.state === 'Ready');
      const cold = answers.filter((a) => a.result?.state === 'Spawning');
      // Every create got a server or a cold start.
      expect(warm.length + cold.length).toBe(200);
      // No server was ended: none failed, none stopped.
      const ended = [];
      for (const server of servers) {
        const room = await rooms.find(server.roomId);
        if (room?.state === 'failed') ended.push({ roomId: server.roomId, reason: room.failureReason });
      }
      expect(ended).toEqual([]);
      expect(spawner.stopped).toEqual([]);
      // Each server went to exactly one creator, who got it; its game was told that creator's
      // settings, once; no sidecar ever saw a second `assign`.
      expect(warm.map((w) => w.result?.room.roomId).sort()).toEqual(servers.map((s) => s.roomId).sort());
      for (const server of servers) {
        const winner = warm.find((w) => w.result?.room.roomId === server.roomId);
        expect(server.assignsReceived).toHaveLength(1);
        expect(server.gameHanded).toEqual([winner?.account]);
        expect(await rooms.find(server.roomId)).toMatchObject({ owner: winner?.account, state: 'ready' });
      }
      // Each cold start is a room of its own, for its own creator.
      expect(new Set(cold.map((c) => c.result?.room.roomId)).size).toBe(cold.length);
      expect(spawner.spawned.sort()).toEqual(cold.map((c) => c.result?.room.roomId ?? '').sort());
      for (const { account, result } of cold) expect(result?.room.owner).toBe(account);
      // Taken servers leave the list creates read with their take.
      expect(await new PoolStore(test.db, test.tableName).readyServers(key.gameId, key.version)).toEqual([]);
    } finally {
      for (const process of processes) process.close();
      await Promise.all(servers.map((s) => s.bridge.close()));
      sqs.destroy();
    }
  }, 120_000);

  it('takes a server with 2 sequential DynamoDB requests before the game is told: the ready list, then the take', async () => {
    const configuration = configurationOf(`count-${randomUUID().slice(0, 8)}`);
    const key = { gameId: configuration.gameId, version: configuration.version, region: 'eu-west-1' };
    const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
    const server = await standbyServer(key, sqs);
    const timeline: string[] = [];
    const process = aProcess(configuration, new RecordingSpawner(), timeline);
    try {
      expect(await process.create('solo')).toMatchObject({ state: 'Ready', room: { roomId: server.roomId } });

      const sent = timeline.indexOf('assign sent');
      expect(timeline.slice(0, sent)).toEqual([
        'start QueryCommand',
        'end QueryCommand',
        'start UpdateItemCommand',
        'end UpdateItemCommand',
      ]);
      // Nothing more: the take's write took the server off the list, and the keeper drops its entry.
      expect(timeline.slice(sent)).toEqual(['assign sent', 'game answered']);
    } finally {
      process.close();
      await server.bridge.close();
      sqs.destroy();
    }
  }, 60_000);
});
