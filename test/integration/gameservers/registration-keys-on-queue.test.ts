import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueDefinitions } from '../../../core/infra/queues';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { generateRegistrationKey, hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { createQueues } from '../../../local/sqs-emulator';
import { startSqsPoller } from '../../../local/sqs-pollers';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { closeHarness, expectNoLeftovers, externalEndpoint, TestGame, withSidecar } from '../controller/harness';

/**
 * Issue 26, "a stolen key takes another player's seat": the request queue is MAC'd, not
 * encrypted, and locally (no IAM) anyone on the machine can read it. The real sidecar (its own
 * process, real ZeroMQ) forwards the game's `joined` and `left` over the SQS emulator to the
 * real consumer; the test reads every raw message the consumer was delivered, as any reader of
 * the queue could, and then plays the thief: it presents to the game whatever it read.
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

/** Every way the key could sit in a message and be read back: its text, its bytes, hex and base64 of either. */
function encodingsOf(key: string): string[] {
  const raw = Buffer.from(key, 'base64url');
  const text = Buffer.from(key, 'utf8');
  return [
    key,
    ...[raw, text].flatMap((bytes) => ['hex', 'base64', 'base64url'].map((e) => bytes.toString(e as 'hex'))),
  ];
}

/** The request inside a raw SQS body (envelope → payload), as a reader of the queue would open it. */
function requestIn(record: SQSRecord): { method?: string; params?: Record<string, unknown> } {
  return JSON.parse((JSON.parse(record.body) as { payload: string }).payload) as never;
}

describe('registration keys on the controller request queue', () => {
  it('joined and left carry no key a reader of the queue could present: the join confirms, the thief is refused', async () => {
    const definition = { ...queueDefinitions.controllerRequests, visibilityTimeoutS: 1 };
    const urls = (await createQueues(sqs, `keys-${randomUUID().slice(0, 8)}`, {
      controllerRequests: definition,
    })) as Record<string, string>;
    const queueUrl = urls.controllerRequests ?? '';
    const room = aRoom({
      state: 'spawning',
      players: 1,
      serverScopes: ['play'],
      spawnDeadline: new Date(Date.now() + 120_000).toISOString(),
      placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38998] },
    });
    const key = generateRegistrationKey();
    await rooms.createWithMember(room, {
      roomId: room.roomId,
      account: 'alice',
      state: 'reserved',
      keyHash: hashRegistrationKey(key),
      scopes: ['play'],
      expiresAt: new Date(Date.now() + 120_000).toISOString(),
      createdAt: new Date().toISOString(),
    });

    // The consumer, fed by the event-source-mapping poller; each record is kept as SQS delivered it.
    const read: SQSRecord[] = [];
    const poller = startSqsPoller({
      sqs,
      queueUrl,
      functionName: 'controller-events',
      handler: (event: SQSEvent) => {
        read.push(...event.Records);
        return processControllerEvents(event);
      },
      batchSize: 10,
      concurrency: 1,
      waitTimeS: 1,
    });
    const socket = externalEndpoint();
    try {
      await withSidecar(
        {
          keys: await lambdaPlatform().sidecarKeys(room.roomId),
          env: {
            GAME_LAUNCH: 'external',
            ZMQ_ENDPOINT: socket.endpoint,
            ROOM_ID: room.roomId,
            CONTROLLER_REQUEST_QUEUE_URL: queueUrl,
            SPAWN_TIMEOUT_S: '60',
            STATUS_INTERVAL_S: '60',
            HEARTBEAT_INTERVAL_S: '60',
          },
        },
        async (run) => {
          const game = new TestGame(socket.endpoint);
          try {
            expect(await game.call('inited', {}, 15_000)).toMatchObject({ result: { status: 'OK' } });
            // The wire protocol with the game is unchanged: it sends the key its player presented.
            const joined = await game.call('joined', { key }, 15_000);
            expect(joined).toMatchObject({ result: { account: 'alice', scopes: ['play'] } });
            expect(await members.findMember(room.roomId, 'alice')).toMatchObject({ state: 'active' });

            // The thief read the queue and presents to the game every value the joined carried.
            const forwarded = read.map(requestIn).find((r) => r.method === 'joined');
            const stolen = Object.values(forwarded?.params ?? {}).filter((v): v is string => typeof v === 'string');
            expect(stolen.length).toBeGreaterThan(0);
            for (const candidate of stolen) {
              expect(await game.call('joined', { key: candidate }, 15_000)).toMatchObject({
                error: { code: rpcErrorCodes.keyRejected },
              });
            }

            expect(await game.call('left', { key }, 15_000)).toMatchObject({ result: { status: 'OK' } });
            expect(await members.findMember(room.roomId, 'alice')).toBeUndefined();
          } finally {
            if (run.child.exitCode === null && run.child.signalCode === null) await run.signal('SIGTERM');
            game.close();
          }
        },
      );
    } finally {
      socket.cleanup();
      await poller.stop();
    }

    const methods = read.map(requestIn).map((r) => r.method);
    expect(methods).toEqual(expect.arrayContaining(['joined', 'left']));
    // Whole records (body, attributes, ids), not only the payload: no encoding of the key anywhere.
    const everything = JSON.stringify(read);
    for (const encoded of encodingsOf(key)) expect(everything).not.toContain(encoded);
  });
});
