import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { createTokenVerifier } from '../../../core/auth/tokens';
import { createSqsClient } from '../../../core/infra/aws-clients';
import type { ControllerReply, ControllerRequest } from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { generateRegistrationKey, hashRegistrationKey } from '../../../core/reservations/keys';
import { RoomStore } from '../../../core/rooms/store';
import {
  openReply,
  sealRequest,
  sidecarKeysFromRoomKey,
  type SidecarKeys,
} from '../../../core/protocol/sidecar-channel';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, testIssuer, type TestPlatform } from '../../helpers/platform';

let platform: TestPlatform;
let rooms: RoomStore;
let sqs: SQSClient;
let replyQueue: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = new RoomStore(platform.db, platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  replyQueue = (await sqs.send(new CreateQueueCommand({ QueueName: `reply-${randomUUID()}` }))).QueueUrl ?? '';
});
afterAll(async () => {
  sqs.destroy();
  await platform.close();
});

/** Rooms whose channel this test used: replies to any of them are opened with its key. */
const roomKeys = new Map<string, SidecarKeys>();
async function keysOf(roomId: string): Promise<SidecarKeys> {
  const keys = await lambdaPlatform().sidecarKeys(roomId);
  roomKeys.set(roomId, keys);
  return keys;
}

/** The SQS body a room's real sidecar would send: the request in an envelope MAC'd with K_room. */
const sealed = async (m: ControllerRequest, keys?: SidecarKeys) =>
  JSON.stringify(sealRequest(keys ?? (await keysOf(m.roomId)), JSON.stringify(m)));

/** Delivers messages to the consumer as the event source mapping would, as the room's sidecar sent them. */
async function deliver(...messages: ControllerRequest[]) {
  return deliverBodies(
    messages.map((m) => m.roomId),
    await Promise.all(messages.map((m) => sealed(m))),
  );
}

/** Delivers raw bodies (forged or hand-made), each in the message group of `groups[i]`. */
async function deliverBodies(groups: readonly string[], bodies: readonly string[]) {
  const event: SQSEvent = {
    Records: bodies.map((body, i) => ({
      messageId: randomUUID(),
      receiptHandle: 'r',
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
        MessageGroupId: groups[i],
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn',
      awsRegion: 'us-east-1',
    })),
  };
  return processControllerEvents(event);
}

async function replies(count: number): Promise<ControllerReply[]> {
  const got: ControllerReply[] = [];
  const deadline = Date.now() + 10_000;
  while (got.length < count && Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: replyQueue, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const m of Messages) {
      // Sealed for one room: whichever room's key opens it.
      const text = [...roomKeys.values()].map((keys) => openReply(keys, m.Body ?? '')).find((t) => t !== undefined);
      if (text === undefined) throw new Error(`A reply no room's sidecar could read: ${m.Body}`);
      got.push(JSON.parse(text));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: replyQueue, ReceiptHandle: m.ReceiptHandle }));
    }
  }
  return got;
}

const rpc = (
  roomId: string,
  method: 'inited' | 'joined' | 'left',
  params: unknown,
  correlationId = randomUUID(),
): ControllerRequest => ({
  type: 'rpc',
  roomId,
  sentAt: new Date().toISOString(),
  correlationId,
  replyTo: replyQueue,
  method,
  params,
});

const inFuture = (s: number) => new Date(Date.now() + s * 1000).toISOString();

async function spawningRoomWithCreator(options: { reservationExpiresAt?: string; spawnDeadline?: string } = {}) {
  const room = aRoom({ state: 'spawning', players: 1, spawnDeadline: options.spawnDeadline ?? inFuture(30) });
  const key = generateRegistrationKey();
  await rooms.createWithMember(room, {
    roomId: room.roomId,
    account: 'alice',
    state: 'reserved',
    keyHash: hashRegistrationKey(key),
    scopes: ['play'],
    expiresAt: options.reservationExpiresAt ?? inFuture(60),
    createdAt: new Date().toISOString(),
  });
  return { room, key };
}

describe('inited', () => {
  it('makes a spawning room ready once, replaces its settings, and answers a redelivery the same', async () => {
    const { room } = await spawningRoomWithCreator();
    const request = rpc(room.roomId, 'inited', { settings: { map: 'desert' } });
    await deliver(request);
    await deliver(request);
    const answers = await replies(2);
    expect(answers).toEqual([
      { type: 'reply', correlationId: request.type === 'rpc' ? request.correlationId : '', result: { status: 'OK' } },
      { type: 'reply', correlationId: request.type === 'rpc' ? request.correlationId : '', result: { status: 'OK' } },
    ]);
    const stored = await rooms.get(room.roomId);
    expect([stored.state, stored.settings, stored.changeNumber]).toEqual(['ready', { map: 'desert' }, 2]);
  });

  it('refuses a second inited with a new request id, changing nothing', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}));
    await deliver(rpc(room.roomId, 'inited', { settings: { map: 'other' } }));
    const [, second] = await replies(2);
    expect(second?.type === 'reply' && second.error?.code).toBe(rpcErrorCodes.notAllowed);
    expect((await rooms.get(room.roomId)).settings).toEqual(aRoom().settings);
  });

  it('refuses a late inited and fails the room', async () => {
    const { room } = await spawningRoomWithCreator({ spawnDeadline: new Date(Date.now() - 1000).toISOString() });
    await deliver(rpc(room.roomId, 'inited', {}));
    const [answer] = await replies(1);
    expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.roomClosed);
    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'failed', failureReason: 'spawn-timeout' });
  });
});

describe('joined', () => {
  it('confirms the key once and answers a redelivery with the identical reply, a room-scoped player token', async () => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}));
    const request = rpc(room.roomId, 'joined', { key });
    await deliver(request);
    await deliver(request);
    const [, first, second] = await replies(3);
    expect(first).toEqual(second);
    const result =
      first?.type === 'reply'
        ? (first.result as { access_token: string; account: string; scopes: string[] })
        : undefined;
    expect(result).toMatchObject({ account: 'alice', scopes: ['play'] });
    const verify = createTokenVerifier({ issuer: testIssuer, audience: `room:${room.roomId}`, jwks: platform.jwks });
    await expect(verify(result?.access_token ?? '')).resolves.toEqual({ account: 'alice', scopes: ['play'] });
  });

  it.each([
    ['an unknown key', async (key: string) => `${key}x`],
    ['a used key with a new request id', async (key: string) => key],
  ])('rejects %s', async (_name, keyFor) => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    await replies(2);
    await deliver(rpc(room.roomId, 'joined', { key: await keyFor(key) }));
    const [answer] = await replies(1);
    expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.keyRejected);
  });

  it('rejects an expired key, judged by the platform clock without any sweeper', async () => {
    const { room, key } = await spawningRoomWithCreator({
      reservationExpiresAt: new Date(Date.now() - 1).toISOString(),
    });
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    const [, answer] = await replies(2);
    expect(answer?.type === 'reply' && answer.error).toMatchObject({
      code: rpcErrorCodes.keyRejected,
      message: expect.stringContaining('expired'),
    });
  });

  it("rejects room A's key sent by room B's sidecar", async () => {
    const a = await spawningRoomWithCreator();
    const b = await spawningRoomWithCreator();
    await deliver(rpc(b.room.roomId, 'inited', {}), rpc(b.room.roomId, 'joined', { key: a.key }));
    const [, answer] = await replies(2);
    expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.keyRejected);
  });
});

describe('joined with token extension', () => {
  async function joinWith(extension: (roomId: string) => Promise<Record<string, string>>) {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(
      rpc(room.roomId, 'inited', {}),
      rpc(room.roomId, 'joined', { key, ...(await extension(room.roomId)) }),
    );
    const [, answer] = await replies(2);
    return { room, answer: answer?.type === 'reply' ? answer : undefined };
  }

  it("adds the scopes the room's server token holds to the player's token only", async () => {
    const { room, answer } = await joinWith(async (roomId) => ({
      extend_token: await platform.token(`server:${roomId}`, ['game-server', 'chat', 'trade']),
      extend_scopes: 'chat,trade',
    }));
    expect((answer?.result as { scopes: string[] }).scopes).toEqual(['play', 'chat', 'trade']);
    const verify = createTokenVerifier({ issuer: testIssuer, audience: `room:${room.roomId}`, jwks: platform.jwks });
    await expect(verify((answer?.result as { access_token: string }).access_token)).resolves.toEqual({
      account: 'alice',
      scopes: ['play', 'chat', 'trade'],
    });
  });

  it.each([
    [
      'a scope the server token lacks',
      async (roomId: string) => ({
        extend_token: await platform.token(`server:${roomId}`, ['chat']),
        extend_scopes: 'admin',
      }),
    ],
    [
      "another room's server token",
      async () => ({ extend_token: await platform.token('server:other-room', ['chat']), extend_scopes: 'chat' }),
    ],
    ['a forged token', async () => ({ extend_token: 'not.a.jwt', extend_scopes: 'chat' })],
  ])('refuses %s, leaving the key unused', async (_name, extension) => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(
      rpc(room.roomId, 'inited', {}),
      rpc(room.roomId, 'joined', { key, ...(await extension(room.roomId)) }),
    );
    const [, refused] = await replies(2);
    expect(refused?.type === 'reply' && refused.error?.code).toBe(rpcErrorCodes.scopeRefused);
    await deliver(rpc(room.roomId, 'joined', { key }));
    const [plain] = await replies(1);
    expect(plain?.type === 'reply' && plain.result).toMatchObject({ account: 'alice', scopes: ['play'] });
  });
});

describe('left', () => {
  it('frees the slot at once and answers a redelivery the same', async () => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    await replies(2);
    const request = rpc(room.roomId, 'left', { key });
    await deliver(request);
    await deliver(request);
    const answers = await replies(2);
    expect(answers.map((a) => a.type === 'reply' && a.result)).toEqual([{ status: 'OK' }, { status: 'OK' }]);
    expect((await rooms.get(room.roomId)).players).toBe(0);
  });
});

describe('exited and heartbeat', () => {
  it.each([
    ['crashed', 'ready', 'failed'],
    ['hung', 'ready', 'failed'],
    ['spawn-timeout', 'spawning', 'failed'],
    ['exited', 'ready', 'closed'],
  ] as const)('%s from a %s room leaves it %s', async (reason, before, after) => {
    const { room } = await spawningRoomWithCreator();
    if (before === 'ready') await deliver(rpc(room.roomId, 'inited', {}));
    await deliver({ type: 'exited', roomId: room.roomId, sentAt: new Date().toISOString(), reason, exitCode: 1 });
    expect((await rooms.get(room.roomId)).state).toBe(after);
    await replies(before === 'ready' ? 1 : 0);
  });

  it('a heartbeat moves lastHeartbeatAt', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}));
    await replies(1);
    const before = await rooms.get(room.roomId);
    await deliver({ type: 'heartbeat', roomId: room.roomId, sentAt: new Date().toISOString() });
    expect((await rooms.get(room.roomId)).lastHeartbeatAt).not.toEqual(before.lastHeartbeatAt);
  });

  it('drops a malformed message instead of retrying it forever', async () => {
    const result = await processControllerEvents({
      Records: [{ messageId: 'm', body: '{"type":"nope"}', attributes: {} } as never],
    });
    expect(result.batchItemFailures).toEqual([]);
  });
});

describe('cross-room spoofing (issue 8.2): only the sidecar started for a room speaks for it', () => {
  /** What a game that read the queue URL from its sidecar can send: any JSON, any room id, any key but B's. */
  const forgeries = (victim: string, own: SidecarKeys) => {
    const now = new Date().toISOString();
    const exited: ControllerRequest = { type: 'exited', roomId: victim, sentAt: now, reason: 'crashed', exitCode: 1 };
    const heartbeat: ControllerRequest = { type: 'heartbeat', roomId: victim, sentAt: now };
    const inited = rpc(victim, 'inited', { settings: { map: 'chosen-by-attacker' } });
    const guessed = sidecarKeysFromRoomKey(victim, Buffer.alloc(32, 7));
    return [
      // The old format: a bare request naming the victim.
      ...[exited, heartbeat, inited].map((m) => JSON.stringify(m)),
      // An envelope for the victim, MAC'd with a key the attacker made up.
      ...[exited, heartbeat, inited].map((m) => JSON.stringify(sealRequest(guessed, JSON.stringify(m)))),
      // An envelope for the attacker's own room (valid MAC) whose payload names the victim.
      ...[exited, heartbeat, inited].map((m) => JSON.stringify(sealRequest(own, JSON.stringify(m)))),
      // A valid envelope of the attacker's room with the victim's id swapped into it.
      ...[exited].map((m) => JSON.stringify({ ...sealRequest(own, JSON.stringify(m)), roomId: victim })),
    ];
  };

  it('a forged exited, inited or heartbeat for room B changes nothing, and is dropped, not retried', async () => {
    const attacker = await spawningRoomWithCreator();
    const victim = await spawningRoomWithCreator();
    const spawning = await rooms.get(victim.room.roomId);
    const bodies = forgeries(victim.room.roomId, await keysOf(attacker.room.roomId));

    const result = await deliverBodies(
      bodies.map(() => victim.room.roomId),
      bodies,
    );

    expect(result.batchItemFailures).toEqual([]);
    expect(await rooms.get(victim.room.roomId)).toEqual(spawning);
    await replies(0);
  });

  it('a forged heartbeat does not keep a ready room B alive, nor a forged exited fail it', async () => {
    const attacker = await spawningRoomWithCreator();
    const victim = await spawningRoomWithCreator();
    await deliver(rpc(victim.room.roomId, 'inited', {}));
    await replies(1);
    const ready = await rooms.get(victim.room.roomId);
    const bodies = forgeries(victim.room.roomId, await keysOf(attacker.room.roomId));

    await deliverBodies(
      bodies.map(() => victim.room.roomId),
      bodies,
    );

    expect(await rooms.get(victim.room.roomId)).toEqual(ready);
  });

  it('room B replies are sealed: room A cannot read them', async () => {
    const a = await spawningRoomWithCreator();
    const b = await spawningRoomWithCreator();
    await keysOf(a.room.roomId);
    const request = rpc(b.room.roomId, 'inited', {});
    await deliverBodies([b.room.roomId], [await sealed(request)]);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: replyQueue, MaxNumberOfMessages: 1, WaitTimeSeconds: 5 }),
    );
    const body = Messages[0]?.Body ?? '';
    await sqs.send(new DeleteMessageCommand({ QueueUrl: replyQueue, ReceiptHandle: Messages[0]?.ReceiptHandle }));
    expect(body).not.toContain('OK');
    expect(openReply(await keysOf(a.room.roomId), body)).toBeUndefined();
    expect(JSON.parse(openReply(await keysOf(b.room.roomId), body) ?? 'null')).toMatchObject({
      result: { status: 'OK' },
    });
  });
});

describe('credentials', () => {
  it('are refused where the platform issues none (local), in a sealed answer', async () => {
    const { room } = await spawningRoomWithCreator();
    const correlationId = randomUUID();
    await deliver({
      type: 'credentials',
      roomId: room.roomId,
      sentAt: new Date().toISOString(),
      correlationId,
      replyTo: replyQueue,
    });
    const [answer] = await replies(1);
    expect(answer).toMatchObject({ type: 'reply', correlationId, error: { code: rpcErrorCodes.notAllowed } });
  });
});

describe('a reply queue that is gone', () => {
  const withMissingQueue = async () => {
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: `reply-gone-${randomUUID()}` }))).QueueUrl ?? '';
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    return url;
  };

  it('is retried while the room is live: the sidecar recreates its queue, so the answer must not be lost', async () => {
    const { room } = await spawningRoomWithCreator();
    const gone = await withMissingQueue();
    const result = await deliver({ ...rpc(room.roomId, 'inited', {}), replyTo: gone } as ControllerRequest);
    expect(result.batchItemFailures).toHaveLength(1);
  });

  it('is dropped once the room has ended: its sidecar deleted the queue itself', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver({
      type: 'exited',
      roomId: room.roomId,
      sentAt: new Date().toISOString(),
      reason: 'crashed',
      exitCode: 1,
    });
    const gone = await withMissingQueue();
    const result = await deliver({ ...rpc(room.roomId, 'inited', {}), replyTo: gone } as ControllerRequest);
    expect(result.batchItemFailures).toEqual([]);
  });
});
