import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPlatformIssuer, roomAudience } from '../../../core/auth/token-model';
import { createPlatformTokenVerifier } from '../../../core/auth/tokens';
import { createSqsClient } from '../../../core/infra/aws-clients';
import {
  forwardedCall,
  gameRequestId,
  type ControllerReply,
  type ControllerRequest,
} from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { generateRegistrationKey, hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { Rooms } from '../../../core/rooms/rooms';
import { ServerSlotStore } from '../../../core/gameservers/server-slot-store';
import { keys } from '../../../core/infra/keys';
import { queueDefinitions } from '../../../core/infra/queues';
import {
  openReply,
  sealRequest,
  sidecarKeysFromRoomKey,
  type SidecarKeys,
} from '../../../core/protocol/sidecar-channel';
import { configurePlatform, platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { controllerQueueEvent } from '../../helpers/sidecar-channel';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

let platform: TestPlatform;
let rooms: RoomStore;
let members: RoomStore;
let sqs: SQSClient;
let replyQueue: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  members = dynamoRoomStore(platform.db, platform.tableName);
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
  return deliverAttempt(1, ...messages);
}

/** The same, as the `receiveCount`th delivery of each message. */
async function deliverAttempt(receiveCount: number, ...messages: ControllerRequest[]) {
  return deliverBodies(
    messages.map((m) => m.roomId),
    await Promise.all(messages.map((m) => sealed(m))),
    receiveCount,
  );
}

/** Delivers raw bodies (forged or hand-made), each in the message group of `groups[i]`. */
async function deliverBodies(groups: readonly string[], bodies: readonly string[], receiveCount = 1) {
  return processControllerEvents(controllerQueueEvent(groups, bodies, receiveCount));
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

/**
 * A game call as the room's sidecar forwards it (a registration key as its hash): by default a
 * new game request (JSON-RPC id) and a new forward; `gameRequest` names the game's request
 * when a test repeats it (the game's retry with the same id).
 */
const rpc = (
  roomId: string,
  method: 'inited' | 'joined' | 'left',
  params: unknown,
  gameRequest = gameRequestId(randomUUID()),
): ControllerRequest => ({
  type: 'rpc',
  roomId,
  sentAt: new Date().toISOString(),
  correlationId: randomUUID(),
  replyTo: replyQueue,
  ...forwardedCall(method, params, gameRequest),
});

const gameRequestOf = (m: ControllerRequest) => (m.type === 'rpc' && 'gameRequest' in m ? (m.gameRequest ?? '') : '');

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
    /** Where the spawner said the server is: by default one that knew at once (the local fleet). */
    host?: string;
  } = {},
) {
  const room = aRoom({
    state: 'spawning',
    placement: { taskId: 'arn:aws:ecs:us-east-1:1:task/c/t', host: options.host ?? '127.0.0.1', ports: [7777] },
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

  it('answers a retried inited (new request id, the settings the room has) OK, changing nothing: the sidecar lost the first answer', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', { settings: { map: 'desert' } }));
    const before = await rooms.get(room.roomId);
    await deliver(rpc(room.roomId, 'inited', { settings: { map: 'desert' } }), rpc(room.roomId, 'inited', {}));
    const [, retried, bare] = await replies(3);
    expect([retried, bare].map((r) => r?.type === 'reply' && r.result)).toEqual([{ status: 'OK' }, { status: 'OK' }]);
    expect(await rooms.get(room.roomId)).toEqual(before);
  });

  it('a room whose address is not known yet stays spawning: inited is handed back unanswered, and the redelivery readies it once the address is known', async () => {
    let located: string | undefined;
    configurePlatform({ locateServer: () => () => Promise.resolve(located) });
    try {
      const { room } = await spawningRoomWithCreator({ host: 'pending' });
      const request = rpc(room.roomId, 'inited', { settings: { map: 'desert' } });
      const first = await deliver(request);
      // Not answered (the sidecar would take an error as a refusal and end the game): retried.
      expect(first.batchItemFailures).toHaveLength(1);
      const stored = await rooms.get(room.roomId);
      expect([stored.state, stored.address, stored.settings]).toEqual(['spawning', undefined, aRoom().settings]);

      located = '203.0.113.7';
      const second = await deliverAttempt(2, request);
      expect(second.batchItemFailures).toEqual([]);
      const [answer] = await replies(1);
      expect(answer?.type === 'reply' && answer.result).toEqual({ status: 'OK' });
      expect(await rooms.get(room.roomId)).toMatchObject({
        state: 'ready',
        address: '203.0.113.7',
        settings: { map: 'desert' },
      });
    } finally {
      configurePlatform({ locateServer: undefined });
    }
  });

  it('an address never found fails the room on the last delivery, never readies it', async () => {
    configurePlatform({ locateServer: () => () => Promise.resolve(undefined) });
    try {
      const { room } = await spawningRoomWithCreator({ host: 'pending' });
      const { maxReceiveCount } = queueDefinitions.controllerRequests.deadLetter;
      const outcome = await deliverAttempt(maxReceiveCount, rpc(room.roomId, 'inited', {}));
      expect(outcome.batchItemFailures).toHaveLength(1);
      const [answer] = await replies(1);
      expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.roomClosed);
      expect(await rooms.get(room.roomId)).toMatchObject({ state: 'failed', failureReason: 'platform-error' });
    } finally {
      configurePlatform({ locateServer: undefined });
    }
  });

  it('becomes ready with the located public address (the ECS task ENI), which players then get', async () => {
    const asked: (string | undefined)[] = [];
    configurePlatform({
      locateServer: () => (room) => {
        asked.push(room.placement?.taskId);
        return Promise.resolve('203.0.113.7');
      },
    });
    try {
      const { room } = await spawningRoomWithCreator({ host: 'pending' });
      await deliver(rpc(room.roomId, 'inited', {}));
      const [answer] = await replies(1);
      expect(answer?.type === 'reply' && answer.result).toEqual({ status: 'OK' });
      expect(asked).toEqual([room.placement?.taskId]);
      expect(await rooms.get(room.roomId)).toMatchObject({ state: 'ready', address: '203.0.113.7' });
    } finally {
      configurePlatform({ locateServer: undefined });
    }
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

  it('rejects an unknown key', async () => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}), rpc(room.roomId, 'joined', { key }));
    await replies(2);
    await deliver(rpc(room.roomId, 'joined', { key: `${key}x` }));
    const [answer] = await replies(1);
    expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.keyRejected);
  });

  it('rejects a key after left, whatever request id brings it', async () => {
    const { room, key } = await spawningRoomWithCreator();
    await deliver(
      rpc(room.roomId, 'inited', {}),
      rpc(room.roomId, 'joined', { key }),
      rpc(room.roomId, 'left', { key }),
    );
    await replies(3);
    await deliver(rpc(room.roomId, 'joined', { key }));
    const [answer] = await replies(1);
    expect(answer?.type === 'reply' && answer.error?.code).toBe(rpcErrorCodes.keyRejected);
    expect(await members.listMembers(room.roomId)).toEqual([]);
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

  it('refuses the key in clear (a sidecar of the previous release): dropped, not retried, the seat unconfirmed', async () => {
    const { room, key } = await readyRoomWithReservation();
    const clear = { ...rpc(room.roomId, 'joined', {}), params: { key } };
    const result = await deliverBodies(
      [room.roomId],
      [JSON.stringify(sealRequest(await keysOf(room.roomId), JSON.stringify(clear)))],
    );
    expect(result.batchItemFailures).toEqual([]);
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({ state: 'reserved' });
    // The same player through a current sidecar is confirmed: nothing was used up.
    await deliver(rpc(room.roomId, 'joined', { key }));
    const [answer] = await replies(1);
    expect(resultOf(answer)).toMatchObject({ account: 'alice' });
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

  it('an exited server gives back its running-server slot, once (docs/cost-bounds.md)', async () => {
    const { room } = await spawningRoomWithCreator();
    const slots = new ServerSlotStore(platform.db, platform.tableName);
    await slots.acquire(
      { roomId: room.roomId, gameId: 'slotted', version: '1', acquiredAt: new Date().toISOString() },
      { global: 1000, configuration: 10 },
    );
    await deliver(rpc(room.roomId, 'inited', {}));
    await replies(1);
    const exited: ControllerRequest = {
      type: 'exited',
      roomId: room.roomId,
      sentAt: new Date().toISOString(),
      reason: 'exited',
      exitCode: 0,
    };
    await deliver(exited);
    await deliver(exited);
    expect(await slots.running('slotted', '1')).toBe(0);
    expect((await slots.leases()).map((l) => l.roomId)).not.toContain(room.roomId);
  });

  it('a heartbeat moves lastHeartbeatAt', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}));
    await replies(1);
    const before = await rooms.get(room.roomId);
    await deliver({ type: 'heartbeat', roomId: room.roomId, sentAt: new Date().toISOString() });
    expect((await rooms.get(room.roomId)).lastHeartbeatAt).not.toEqual(before.lastHeartbeatAt);
  });

  it('a heartbeat that cannot be applied is not handed back: it would hold the room group behind it for a visibility timeout', async () => {
    const { room } = await spawningRoomWithCreator();
    await deliver(rpc(room.roomId, 'inited', {}));
    await replies(1);
    // DynamoDB fails this one write (a stall, a throttle); the next heartbeat says the same, fresher.
    const failing = jest
      .spyOn(Rooms.prototype, 'recordHeartbeat')
      .mockRejectedValueOnce(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }));
    try {
      const outcome = await deliver(
        { type: 'heartbeat', roomId: room.roomId, sentAt: new Date().toISOString() },
        { type: 'exited', roomId: room.roomId, sentAt: new Date().toISOString(), reason: 'exited', exitCode: 0 },
      );
      expect(outcome.batchItemFailures).toEqual([]);
      expect(failing).toHaveBeenCalledTimes(1);
    } finally {
      failing.mockRestore();
    }
    // The message behind it in the room's group was applied at once.
    expect((await rooms.get(room.roomId)).state).toBe('closed');
  });

  it('drops a malformed message instead of retrying it forever', async () => {
    const result = await processControllerEvents({
      Records: [{ messageId: 'm', body: '{"type":"nope"}', attributes: {} } as never],
    });
    expect(result.batchItemFailures).toEqual([]);
  });
});

const resultOf = (answer: ControllerReply | undefined) => (answer?.type === 'reply' ? answer.result : undefined);
const errorOf = (answer: ControllerReply | undefined) => (answer?.type === 'reply' ? answer.error : undefined);

/** A ready room whose creator holds a reservation, as the game sees it before `joined`. */
async function readyRoomWithReservation(expiresInS = 60) {
  const { room, key } = await spawningRoomWithCreator({ reservationExpiresAt: inFuture(expiresInS) });
  await deliver(rpc(room.roomId, 'inited', {}));
  await replies(1);
  return { room, key, expiresAt: (await members.findMember(room.roomId, 'alice'))?.expiresAt ?? '' };
}

/** The sidecar's notice that it stopped waiting for `joined`, the game's request it forwarded named. */
const abandoned = (joined: ControllerRequest, key: string): ControllerRequest => ({
  type: 'abandoned',
  roomId: joined.roomId,
  sentAt: new Date().toISOString(),
  correlationId: joined.type === 'rpc' ? joined.correlationId : '',
  method: 'joined',
  keyHash: hashRegistrationKey(key),
  gameRequest: gameRequestOf(joined),
});

/** The room's item as stored: what "changes nothing" is judged on, change number included. */
async function storedItem(roomId: string) {
  const { Item } = await platform.db.send(
    new GetCommand({ TableName: platform.tableName, Key: keys.room(roomId), ConsistentRead: true }),
  );
  return Item;
}

describe('a registration key is single use (issue 28)', () => {
  it('answers the request that used the key again byte for byte: redelivered, or retried by the game with the same id', async () => {
    const { room, key } = await readyRoomWithReservation();
    const request = rpc(room.roomId, 'joined', { key });
    const retry = rpc(room.roomId, 'joined', { key }, gameRequestOf(request));
    await deliver(request);
    await deliver(request);
    await deliver(retry);
    const [first, redelivered, retried] = await replies(3);
    expect(resultOf(first)).toMatchObject({ account: 'alice', access_token: expect.any(String) });
    expect(JSON.stringify(redelivered)).toBe(JSON.stringify(first));
    expect(JSON.stringify(resultOf(retried))).toBe(JSON.stringify(resultOf(first)));
  });

  it('rejects any other request with a used key (-32001) and writes nothing: the same item, the same change number', async () => {
    const { room, key } = await readyRoomWithReservation();
    await deliver(rpc(room.roomId, 'joined', { key }));
    const [welcomed] = await replies(1);
    expect(resultOf(welcomed)).toMatchObject({ account: 'alice' });
    const before = await storedItem(room.roomId);
    // Someone who saw the key presents it to the game: the game's request is another one.
    await deliver(rpc(room.roomId, 'joined', { key }));
    const [taken] = await replies(1);
    expect(errorOf(taken)).toEqual({ code: rpcErrorCodes.keyRejected, message: 'Registration key rejected (used).' });
    const after = await storedItem(room.roomId);
    expect(after?.changeNumber).toBe(before?.changeNumber);
    expect(after).toEqual(before);
  });

  it('lets exactly one of two requests racing with one key in: the other gets -32001', async () => {
    const { room, key } = await readyRoomWithReservation();
    const [a, b] = [rpc(room.roomId, 'joined', { key }), rpc(room.roomId, 'joined', { key })];
    await Promise.all([deliver(a), deliver(b)]);
    const answers = await replies(2);
    expect(answers.map((answer) => errorOf(answer)?.code ?? 'welcomed').sort()).toEqual([
      rpcErrorCodes.keyRejected,
      'welcomed',
    ]);
    const winner = answers.find((answer) => resultOf(answer)) as Extract<ControllerReply, { type: 'reply' }>;
    const used = [a, b].find((m) => m.type === 'rpc' && m.correlationId === winner.correlationId);
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({
      state: 'active',
      keyUsedBy: used && gameRequestOf(used),
    });
  });

  it('rejects a key confirmed and then left, the request that used it included', async () => {
    const { room, key } = await readyRoomWithReservation();
    const request = rpc(room.roomId, 'joined', { key });
    await deliver(request, rpc(room.roomId, 'left', { key }));
    await replies(2);
    await deliver(rpc(room.roomId, 'joined', { key }, gameRequestOf(request)), rpc(room.roomId, 'joined', { key }));
    const answers = await replies(2);
    expect(answers.map((answer) => errorOf(answer)?.code)).toEqual([
      rpcErrorCodes.keyRejected,
      rpcErrorCodes.keyRejected,
    ]);
    expect(await members.listMembers(room.roomId)).toEqual([]);
  });

  it('serves a sidecar of the previous release (no game request): its forward is the request, so only a redelivery repeats', async () => {
    const { room, key } = await readyRoomWithReservation();
    const previous = (): ControllerRequest => {
      const { gameRequest: _none, ...message } = rpc(room.roomId, 'joined', { key }) as Extract<
        ControllerRequest,
        { type: 'rpc'; method: 'joined' }
      >;
      return message;
    };
    const request = previous();
    await deliver(request);
    await deliver(request);
    await deliver(previous());
    const [first, redelivered, other] = await replies(3);
    expect(JSON.stringify(redelivered)).toBe(JSON.stringify(first));
    expect(errorOf(other)?.code).toBe(rpcErrorCodes.keyRejected);
  });
});

describe('repeated joined (issue 8, point 5)', () => {
  it.each(['sequential', 'parallel'] as const)(
    '3× %s duplicates (one redelivery, one retry with the same id) → one active member, identical replies',
    async (mode) => {
      const { room, key } = await readyRoomWithReservation();
      const first = rpc(room.roomId, 'joined', { key });
      const requests = [first, first, rpc(room.roomId, 'joined', { key }, gameRequestOf(first))];
      if (mode === 'sequential') for (const request of requests) await deliver(request);
      else await Promise.all(requests.map((request) => deliver(request)));
      const answers = await replies(3);
      expect(answers.map(errorOf)).toEqual([undefined, undefined, undefined]);
      expect(new Set(answers.map((a) => JSON.stringify(resultOf(a)))).size).toBe(1);
      const stored = await members.listMembers(room.roomId);
      expect(stored.map((m) => [m.account, m.state])).toEqual([['alice', 'active']]);
      expect((await rooms.get(room.roomId)).players).toBe(1);
    },
  );

  it("still rejects the key when another room's sidecar repeats it", async () => {
    const a = await readyRoomWithReservation();
    const b = await readyRoomWithReservation();
    const request = rpc(a.room.roomId, 'joined', { key: a.key });
    await deliver(request);
    await deliver(rpc(b.room.roomId, 'joined', { key: a.key }, gameRequestOf(request)));
    const [, foreign] = await replies(2);
    expect(errorOf(foreign)?.code).toBe(rpcErrorCodes.keyRejected);
  });
});

describe('abandoned joined (issue 8, point 5)', () => {
  it('turns a confirmation the game never saw back into the reservation; the retry with the same id then succeeds', async () => {
    const { room, key, expiresAt } = await readyRoomWithReservation();
    const timedOut = rpc(room.roomId, 'joined', { key });
    // The platform applies the joined after the sidecar gave up on it.
    await deliver(timedOut, abandoned(timedOut, key));
    await replies(1);
    const reverted = await members.findMember(room.roomId, 'alice');
    expect(reverted).toMatchObject({ state: 'reserved', expiresAt });
    expect(reverted?.keyUsedBy).toBeUndefined();
    expect((await rooms.get(room.roomId)).players).toBe(1);

    await deliver(rpc(room.roomId, 'joined', { key }, gameRequestOf(timedOut)));
    await deliver(rpc(room.roomId, 'joined', { key }, gameRequestOf(timedOut)));
    const [welcomed, repeated] = await replies(2);
    expect(resultOf(welcomed)).toMatchObject({ account: 'alice' });
    expect(resultOf(repeated)).toEqual(resultOf(welcomed));
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({ state: 'active' });
  });

  it('without a retry, the reverted reservation expires and frees the slot', async () => {
    const { room, key, expiresAt } = await readyRoomWithReservation(5);
    const timedOut = rpc(room.roomId, 'joined', { key });
    await deliver(timedOut, abandoned(timedOut, key));
    await replies(1);
    // Judged by the platform's clock at the original expiry: no timer, no sweeper needed.
    const afterExpiry = new Date(Date.parse(expiresAt) + 1);
    expect(await members.reclaimExpired(room.roomId, new Date(Date.parse(expiresAt) - 1000))).toBe(0);
    expect(await members.reclaimExpired(room.roomId, afterExpiry)).toBe(1);
    expect((await rooms.get(room.roomId)).players).toBe(0);
    expect(await members.listMembers(room.roomId)).toEqual([]);
  });

  it('changes nothing when another request confirmed the key (the game saw that answer)', async () => {
    const { room, key } = await readyRoomWithReservation();
    const answered = rpc(room.roomId, 'joined', { key });
    const timedOut = rpc(room.roomId, 'joined', { key });
    await deliver(answered, timedOut, abandoned(timedOut, key));
    await replies(2);
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({
      state: 'active',
      keyUsedBy: gameRequestOf(answered),
    });
  });

  it('changes nothing after left, and a redelivered abandon changes nothing twice', async () => {
    const { room, key } = await readyRoomWithReservation();
    const joined = rpc(room.roomId, 'joined', { key });
    const abandon = abandoned(joined, key);
    await deliver(joined, abandon, abandon);
    await replies(1);
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({ state: 'reserved' });
    await deliver(rpc(room.roomId, 'joined', { key }), rpc(room.roomId, 'left', { key }), abandon);
    await replies(2);
    expect(await members.listMembers(room.roomId)).toEqual([]);
    expect((await rooms.get(room.roomId)).players).toBe(0);
  });
});

describe('values that cannot be stored exactly (issue 8, point 6)', () => {
  it.each([
    ['an integer beyond 2^53', { settings: { seed: 2 ** 53 + 2 } }, 'settings.seed'],
    ['a number below 1e-300', { settings: { epsilon: 1e-301 } }, 'settings.epsilon'],
    ['an empty key', { settings: { '': 1 } }, 'settings'],
    ['a nested __proto__', { settings: JSON.parse('{"a":{"__proto__":{"admin":true}}}') }, 'settings.a'],
    ['nesting deeper than 32', { settings: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) }, 'settings.a.a.a'],
  ])(
    'inited with %s → -32602 naming it, nothing stored; a valid inited then readies the room',
    async (_name, params, field) => {
      const { room } = await spawningRoomWithCreator();
      await deliver(rpc(room.roomId, 'inited', params));
      const [refused] = await replies(1);
      expect(errorOf(refused)).toEqual({ code: rpcErrorCodes.invalidParams, message: expect.stringContaining(field) });
      expect(await rooms.get(room.roomId)).toMatchObject({ state: 'spawning', changeNumber: 1 });
      await deliver(rpc(room.roomId, 'inited', { settings: { seed: '9007199254740994' } }));
      const [accepted] = await replies(1);
      expect(resultOf(accepted)).toEqual({ status: 'OK' });
      expect(await rooms.get(room.roomId)).toMatchObject({ state: 'ready', settings: { seed: '9007199254740994' } });
    },
  );

  it.each(['joined', 'left'] as const)('%s with unstorable members it would ignore → -32602', async (method) => {
    const { room, key } = await readyRoomWithReservation();
    await deliver(rpc(room.roomId, method, { key, extra: { deep: 2 ** 53 + 2 } }));
    const [refused] = await replies(1);
    expect(errorOf(refused)).toEqual({
      code: rpcErrorCodes.invalidParams,
      message: expect.stringContaining('extra.deep'),
    });
    expect(await members.findMember(room.roomId, 'alice')).toMatchObject({ state: 'reserved' });
  });
});

describe('a message that fails on every delivery (issue 8, point 6)', () => {
  const { maxReceiveCount } = queueDefinitions.controllerRequests.deadLetter;

  /** A member no code path writes (scopes not a list): applying its joined throws every time. */
  async function roomWithCorruptMember() {
    const { room, key } = await readyRoomWithReservation();
    await platform.db.send(
      new UpdateCommand({
        TableName: platform.tableName,
        Key: keys.room(room.roomId),
        UpdateExpression: 'SET members.alice.c = :broken',
        ExpressionAttributeValues: { ':broken': 7 },
      }),
    );
    return { room, key };
  }

  it('is handed back before its last delivery, the room untouched and the rest of its group behind it', async () => {
    const { room, key } = await roomWithCorruptMember();
    const poison = rpc(room.roomId, 'joined', { key });
    const behind = rpc(room.roomId, 'left', { key: 'other' });
    const outcome = await deliverAttempt(maxReceiveCount - 1, poison, behind);
    expect(outcome.batchItemFailures).toHaveLength(2);
    expect((await rooms.get(room.roomId)).state).toBe('ready');
  });

  it('on its last delivery fails the room (platform-error), answers the sidecar, and goes to the dead-letter queue', async () => {
    const { room, key } = await roomWithCorruptMember();
    const poison = rpc(room.roomId, 'joined', { key });
    const heartbeat: ControllerRequest = { type: 'heartbeat', roomId: room.roomId, sentAt: new Date().toISOString() };
    const outcome = await deliverAttempt(maxReceiveCount, poison, heartbeat);
    // Only the poison is handed back (to be dead-lettered); the heartbeat behind it was applied.
    expect(outcome.batchItemFailures).toHaveLength(1);
    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'failed', failureReason: 'platform-error' });
    const [answer] = await replies(1);
    expect(answer).toEqual({
      type: 'reply',
      correlationId: poison.type === 'rpc' ? poison.correlationId : '',
      error: { code: rpcErrorCodes.roomClosed, message: expect.stringContaining('platform-error') },
    });
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
    // The plaintext's quoted keys cannot appear in base64url ciphertext; a bare "OK" can, by chance.
    expect(body).not.toContain('"status"');
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

  it('is dropped on a redelivery of a live room: a sidecar that ended with the call in flight deleted it', async () => {
    const { room } = await spawningRoomWithCreator();
    const gone = await withMissingQueue();
    const result = await deliverAttempt(2, { ...rpc(room.roomId, 'inited', {}), replyTo: gone } as ControllerRequest);
    expect(result.batchItemFailures).toEqual([]);
    // The call itself was applied: the room is ready, only its answer had nowhere to go.
    expect((await rooms.get(room.roomId)).state).toBe('ready');
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
