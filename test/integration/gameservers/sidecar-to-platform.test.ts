import { randomBytes, randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { envelopeKeyFromSecret, sealSidecarVariables } from '../../../core/gameservers/sidecar-envelope';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import { queueDefinitions } from '../../../core/infra/queues';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { encodeRoomKey } from '../../../core/protocol/sidecar-channel';
import { generateRegistrationKey, hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { createQueues } from '../../../local/sqs-emulator';
import { startSqsPoller, type SqsPoller } from '../../../local/sqs-pollers';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import {
  closeHarness,
  expectNoLeftovers,
  externalEndpoint,
  TestGame,
  withSidecar,
  type SidecarRun,
} from '../controller/harness';

/**
 * Issue 8, points 5 and 6, end to end: the real sidecar (bundle, own process) forwards the
 * test game's calls over the SQS emulator to the real controller-events consumer, fed by the
 * local event-source-mapping poller from a FIFO queue with its dead-letter queue, writing to
 * DynamoDB Local.
 */
let platform: TestPlatform;
let sqs: SQSClient;
let rooms: RoomStore;
let members: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  members = dynamoRoomStore(platform.db, platform.tableName);
});
afterAll(async () => {
  expectNoLeftovers();
  closeHarness();
  sqs.destroy();
  await platform.close();
});

/** The platform's request queue, as the local cloud makes it, with a 1 s visibility timeout so retries are quick. */
async function requestQueues(): Promise<{ queueUrl: string; deadLetterUrl: string }> {
  const definition = { ...queueDefinitions.controllerRequests, visibilityTimeoutS: 1 };
  const urls = (await createQueues(sqs, `e2e-${randomUUID().slice(0, 8)}`, {
    controllerRequests: definition,
  })) as Record<string, string>;
  return { queueUrl: urls.controllerRequests ?? '', deadLetterUrl: urls.controllerRequestsDeadLetter ?? '' };
}

function consume(queueUrl: string): SqsPoller {
  return startSqsPoller({
    sqs,
    queueUrl,
    functionName: 'controller-events',
    handler: processControllerEvents,
    batchSize: 10,
    concurrency: 1,
    waitTimeS: 1,
  });
}

async function messagesIn(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A spawning room whose creator holds a reservation: the key is what the game's player presents. */
async function spawningRoom() {
  const room = aRoom({
    state: 'spawning',
    players: 1,
    serverScopes: ['play'],
    spawnDeadline: new Date(Date.now() + 120_000).toISOString(),
    // Placed by a spawner that knew the address (the local fleet): `inited` can make it ready.
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  const key = generateRegistrationKey();
  const expiresAt = new Date(Date.now() + 120_000).toISOString();
  await rooms.createWithMember(room, {
    roomId: room.roomId,
    account: 'alice',
    state: 'reserved',
    keyHash: hashRegistrationKey(key),
    scopes: ['play'],
    expiresAt,
    createdAt: new Date().toISOString(),
  });
  return { roomId: room.roomId, key, expiresAt };
}

/**
 * The controller container's environment as the ECS spawner and ECS give it: the channel key
 * and a session sealed for this room (SIDECAR_SEALED), the envelope secret beside it
 * (SIDECAR_ENVELOPE_KEY, from the task definition's `secrets`), and nothing on stdin.
 */
async function sealedEcsEnvironment(roomId: string): Promise<{ stdin: string; env: Record<string, string> }> {
  const envelopeSecret = randomBytes(48).toString('base64url').slice(0, 64);
  const sealed = sealSidecarVariables(envelopeKeyFromSecret(envelopeSecret), roomId, {
    SIDECAR_KEY: encodeRoomKey(await lambdaPlatform().sidecarKeys(roomId)),
    AWS_ACCESS_KEY_ID: 'sealed-access-key',
    AWS_SECRET_ACCESS_KEY: 'sealed-secret-key',
  });
  return { stdin: '', env: { SIDECAR_SEALED: sealed, SIDECAR_ENVELOPE_KEY: envelopeSecret } };
}

/** One sidecar for `roomId` sending to `queueUrl`; the test is the game (GAME_LAUNCH=external). */
async function withRoomSidecar(
  roomId: string,
  queueUrl: string,
  env: Record<string, string>,
  scenario: (game: TestGame, run: SidecarRun) => Promise<void>,
  sealed?: { stdin: string; env: Record<string, string> },
): Promise<void> {
  const socket = externalEndpoint();
  await withSidecar(
    {
      keys: await lambdaPlatform().sidecarKeys(roomId),
      ...(sealed ? { stdin: sealed.stdin } : {}),
      env: {
        ...sealed?.env,
        GAME_LAUNCH: 'external',
        ZMQ_ENDPOINT: socket.endpoint,
        ROOM_ID: roomId,
        CONTROLLER_REQUEST_QUEUE_URL: queueUrl,
        SPAWN_TIMEOUT_S: '60',
        STATUS_INTERVAL_S: '60',
        HEARTBEAT_INTERVAL_S: '60',
        ...env,
      },
    },
    async (run) => {
      const game = new TestGame(socket.endpoint);
      try {
        await scenario(game, run);
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) await run.signal('SIGTERM');
        game.close();
        socket.cleanup();
      }
    },
  );
}

describe('sidecar → SQS → controller-events → DynamoDB', () => {
  it('a joined the sidecar timed out but the platform applied late is undone; the retry (same id) gets one answer, repeats it byte for byte, and the key is refused to any other request', async () => {
    const { queueUrl } = await requestQueues();
    const { roomId, key, expiresAt } = await spawningRoom();
    let poller = consume(queueUrl);
    try {
      await withRoomSidecar(roomId, queueUrl, { PLATFORM_REPLY_TIMEOUT_S: '1' }, async (game, run) => {
        expect(await game.call('inited', {}, 15_000)).toMatchObject({ result: { status: 'OK' } });
        // The platform stalls: nothing consumes while the game waits for its joined.
        await poller.stop();
        expect(await game.call('joined', { key }, 5_000, 'join-1')).toMatchObject({
          error: { code: rpcErrorCodes.platformTimeout },
        });
        // It comes back and applies the joined, then the sidecar's abandon right behind it.
        poller = consume(queueUrl);
        await run.until(
          () => run.logs.find((l) => l.message === 'dropped a reply nobody waits for (late or foreign)'),
          15_000,
          'the late answer to reach the sidecar',
        );
        expect(
          await eventually(
            () => messagesIn(queueUrl),
            (n) => n === 0,
          ),
        ).toBe(0);
        const reverted = await members.findMember(roomId, 'alice');
        expect(reverted).toMatchObject({ state: 'reserved', expiresAt });
        expect(reverted?.keyUsedBy).toBeUndefined();

        // The game retries as the protocol says: the same request, so the same JSON-RPC id.
        const retry = await game.call('joined', { key }, 10_000, 'join-1');
        expect(retry).toMatchObject({ result: { account: 'alice', scopes: ['play'] } });
        const again = await game.call('joined', { key }, 10_000, 'join-1');
        expect(JSON.stringify(again)).toBe(JSON.stringify(retry));
        expect((await members.listMembers(roomId)).map((m) => [m.account, m.state])).toEqual([['alice', 'active']]);
        const before = await rooms.get(roomId);
        expect(before.players).toBe(1);
        // Someone who saw the key presents it: the game's request is another one.
        expect(await game.call('joined', { key }, 10_000, 'join-2')).toMatchObject({
          error: { code: rpcErrorCodes.keyRejected, message: 'Registration key rejected (used).' },
        });
        expect((await rooms.get(roomId)).changeNumber).toBe(before.changeNumber);
        // The key never travels or shows: only its hash is in the abandon.
        expect(run.stdout.join('\n')).not.toContain(key);
      });
    } finally {
      await poller.stop();
    }
  });

  it('a sidecar started as on ECS (sealed environment, nothing on stdin): an inited holding 2^53 + 2 gets -32602 at once; a valid inited then readies the room', async () => {
    const { queueUrl } = await requestQueues();
    const { roomId } = await spawningRoom();
    const poller = consume(queueUrl);
    const sealed = await sealedEcsEnvironment(roomId);
    try {
      await withRoomSidecar(
        roomId,
        queueUrl,
        {},
        async (game, run) => {
          // Nothing of the sealed values shows in the sidecar's output.
          expect(run.stdout.join('\n')).not.toContain('sealed-secret-key');
          await game.send(
            '{"jsonrpc":"2.0","id":"big","method":"inited","params":{"settings":{"seed":9007199254740994}}}',
          );
          const refused = await game.next((m) => (m as { id?: unknown }).id === 'big', 10_000);
          expect(refused).toMatchObject({
            error: { code: rpcErrorCodes.invalidParams, message: expect.stringContaining('settings.seed') },
          });
          expect(await rooms.get(roomId)).toMatchObject({ state: 'spawning' });
          const accepted = await game.call('inited', { settings: { seed: '9007199254740994' } }, 15_000);
          expect(accepted).toMatchObject({ result: { status: 'OK' } });
          expect(await rooms.get(roomId)).toMatchObject({ state: 'ready', settings: { seed: '9007199254740994' } });
        },
        sealed,
      );
    } finally {
      await poller.stop();
    }
  });

  it('a message that throws on every delivery ends in the dead-letter queue; the room fails, the game is answered', async () => {
    const { queueUrl, deadLetterUrl } = await requestQueues();
    const { roomId, key } = await spawningRoom();
    const poller = consume(queueUrl);
    try {
      await withRoomSidecar(roomId, queueUrl, { PLATFORM_REPLY_TIMEOUT_S: '30' }, async (game) => {
        expect(await game.call('inited', {}, 15_000)).toMatchObject({ result: { status: 'OK' } });
        // A member no code path writes (scopes not a list): applying its joined throws every time.
        await platform.db.send(
          new UpdateCommand({
            TableName: platform.tableName,
            Key: keys.room(roomId),
            UpdateExpression: 'SET members.alice.c = :broken',
            ExpressionAttributeValues: { ':broken': 7 },
          }),
        );
        const started = Date.now();
        const answer = await game.call('joined', { key }, 30_000);
        process.stdout.write(
          `poison message: the game got its answer after ${Date.now() - started} ms ` +
            `(${queueDefinitions.controllerRequests.deadLetter.maxReceiveCount} deliveries, 1 s visibility timeout)\n`,
        );
        expect(answer).toMatchObject({
          error: { code: rpcErrorCodes.roomClosed, message: expect.stringContaining('platform-error') },
        });
        expect(await rooms.get(roomId)).toMatchObject({ state: 'failed', failureReason: 'platform-error' });
        expect(
          await eventually(
            () => messagesIn(deadLetterUrl),
            (n) => n === 1,
          ),
        ).toBe(1);
        // The room's group is not wedged: what follows is answered at once.
        expect(await game.call('left', { key }, 10_000)).toHaveProperty('result');
      });
    } finally {
      await poller.stop();
    }
  });
});
