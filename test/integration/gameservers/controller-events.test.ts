import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { defaultPlatformIssuer, roomAudience } from '../../../core/auth/token-model';
import { createPlatformTokenVerifier } from '../../../core/auth/tokens';
import { createSqsClient } from '../../../core/infra/aws-clients';
import type { ControllerReply, ControllerRequest } from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { generateRegistrationKey, hashRegistrationKey } from '../../../core/reservations/keys';
import { RoomStore } from '../../../core/rooms/store';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

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

/** Delivers messages to the consumer as the event source mapping would. */
async function deliver(...messages: ControllerRequest[]) {
  const event: SQSEvent = {
    Records: messages.map((m) => ({
      messageId: randomUUID(),
      receiptHandle: 'r',
      body: JSON.stringify(m),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
        MessageGroupId: m.roomId,
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
      got.push(JSON.parse(m.Body ?? '{}'));
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

/** The joined-player token as a service the game hands it to would check it. */
const verifyJoinedToken = (token: string, roomId: string) =>
  createPlatformTokenVerifier({ issuer: defaultPlatformIssuer, jwks: platform.platformJwks })(
    token,
    roomAudience(roomId),
  );

async function spawningRoomWithCreator(
  options: {
    reservationExpiresAt?: string;
    spawnDeadline?: string;
    serverScopes?: string[];
    memberScopes?: string[];
  } = {},
) {
  const room = aRoom({
    state: 'spawning',
    players: 1,
    spawnDeadline: options.spawnDeadline ?? inFuture(30),
    serverScopes: options.serverScopes ?? ['play', 'chat', 'trade'],
  });
  const key = generateRegistrationKey();
  await rooms.createWithMember(room, {
    roomId: room.roomId,
    account: 'alice',
    state: 'reserved',
    keyHash: hashRegistrationKey(key),
    scopes: options.memberScopes ?? ['play'],
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
    await expect(verifyJoinedToken(result?.access_token ?? '', room.roomId)).resolves.toEqual({
      account: 'alice',
      scopes: ['play'],
      room: room.roomId,
    });
  });

  it("never gives the game a player's scopes beyond the configuration's serverScopes, nor admin for a joining admin", async () => {
    const { room, key } = await spawningRoomWithCreator({
      serverScopes: ['chat'],
      memberScopes: ['admin', 'play', 'chat'],
    });
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    const [, answer] = await replies(2);
    const result = answer?.type === 'reply' ? (answer.result as { access_token: string; scopes: string[] }) : undefined;
    expect(result?.scopes).toEqual(['chat']);
    await expect(verifyJoinedToken(result?.access_token ?? '', room.roomId)).resolves.toMatchObject({
      scopes: ['chat'],
    });
  });

  it('gives a room created before serverScopes were recorded no scopes at all (fails safe)', async () => {
    const { room, key } = await spawningRoomWithCreator({ serverScopes: [], memberScopes: ['admin', 'play'] });
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    const [, answer] = await replies(2);
    expect(answer?.type === 'reply' && answer.result).toMatchObject({ scopes: [] });
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
      extend_token: await platform.serverToken(roomId, ['chat', 'trade']),
      extend_scopes: 'chat,trade',
    }));
    expect((answer?.result as { scopes: string[] }).scopes).toEqual(['play', 'chat', 'trade']);
    await expect(
      verifyJoinedToken((answer?.result as { access_token: string }).access_token, room.roomId),
    ).resolves.toEqual({ account: 'alice', scopes: ['play', 'chat', 'trade'], room: room.roomId });
  });

  it.each([
    [
      'a scope the server token lacks',
      async (roomId: string) => ({
        extend_token: await platform.serverToken(roomId, ['chat']),
        extend_scopes: 'trade',
      }),
    ],
    [
      "a scope the server token holds but the room's serverScopes do not allow",
      async (roomId: string) => ({
        extend_token: await platform.serverToken(roomId, ['chat', 'admin']),
        extend_scopes: 'admin',
      }),
    ],
    [
      "another room's server token",
      async () => ({ extend_token: await platform.serverToken('other-room', ['chat']), extend_scopes: 'chat' }),
    ],
    [
      "a token naming this room's server but signed for another room",
      async (roomId: string) => ({
        extend_token: await platform.serverToken('other-room', ['chat'], { account: `server:${roomId}` }),
        extend_scopes: 'chat',
      }),
    ],
    [
      'a joined-player token of this room (room audience, not the game-server one)',
      async (roomId: string) => ({
        extend_token: await platform.serverToken(roomId, ['chat'], { audience: roomAudience(roomId) }),
        extend_scopes: 'chat',
      }),
    ],
    [
      "an identity provider token with the server's account",
      async (roomId: string) => ({
        extend_token: await platform.token(`server:${roomId}`, ['chat']),
        extend_scopes: 'chat',
      }),
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

  it('drops a malformed message instead of retrying it forever', async () => {
    const result = await processControllerEvents({
      Records: [{ messageId: 'm', body: '{"type":"nope"}', attributes: {} } as never],
    });
    expect(result.batchItemFailures).toEqual([]);
  });
});
