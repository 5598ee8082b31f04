import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import {
  forwardedCall,
  type ControllerReply,
  type ControllerRequest,
} from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { itemBytes, roomItemBudget } from '../../../core/rooms/item-budget';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestApi, type TestApi } from '../../helpers/platform';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';

/**
 * A room's one item under what players can repeat (issue 26): 2,000 join/leave cycles from 75
 * accounts, then 96 players whose tokens carry 64 long scopes, all in ONE room. Before the
 * budget, every `left` kept a tombstone for an hour (uncapped) and a confirmed member stored
 * its scopes twice: the item passed DynamoDB's 400 KB, joins answered 500 and `joined` could
 * not be written. Joins and leaves go through the HTTP API, `joined` and `left` through the
 * real consumer as the room's sidecar seals them, one at a time (the room's FIFO group).
 */
let api: TestApi;
let rooms: RoomStore;
let sessions: RoomStore;
let sqs: SQSClient;
const channel = new SidecarChannelDouble();
const queues: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ JOIN_RATE_LIMIT_PER_MINUTE: '10000', HEARTBEAT_TIMEOUT_S: '600' });
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  sessions = dynamoRoomStore(api.platform.db, api.platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
});
afterAll(async () => {
  await Promise.all(queues.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl })).catch(() => undefined)));
  sqs.destroy();
  await api.close();
});

async function replyQueue(): Promise<string> {
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: `budget-${randomUUID()}` }))).QueueUrl ?? '';
  queues.push(url);
  return url;
}

/** Every reply on a queue, each read once. */
async function drain(queueUrl: string): Promise<ControllerReply[]> {
  const got: ControllerReply[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600 }),
    );
    if (Messages.length === 0) return got;
    got.push(...Messages.map((m) => channel.open(m.Body ?? '')));
  }
}

const scopeOf = (prefix: string, i: number) => `${prefix}${i}:`.padEnd(64, 'x');
/** The configuration's ceiling: 32 scopes of 64 characters (the most a configuration may name). */
const serverScopes = Array.from({ length: 32 }, (_, i) => scopeOf('game', i));

async function rawItem(roomId: string): Promise<Record<string, unknown>> {
  const { Item } = await api.platform.db.send(
    new GetCommand({ TableName: api.platform.tableName, Key: keys.room(roomId), ConsistentRead: true }),
  );
  return Item ?? {};
}

/**
 * The room's sidecar: its messages reach the consumer in order, one at a time, as the room's
 * FIFO message group delivers them. Each delivery's batch failures (a thrown error: the
 * message would be retried and hold the group) are collected.
 */
function sidecarOf(roomId: string, replyTo: string) {
  let tail: Promise<unknown> = Promise.resolve();
  const failures: string[] = [];
  const sent = new Map<string, ControllerRequest>();
  const deliver = (request: ControllerRequest, receiveCount = 1): Promise<void> => {
    const run = tail.then(async () => {
      const result = await processControllerEvents(
        controllerQueueEvent([roomId], [await channel.seal(request)], receiveCount),
      );
      failures.push(...result.batchItemFailures.map((f) => `${request.type}: ${f.itemIdentifier}`));
    });
    tail = run.catch(() => undefined);
    return run;
  };
  const call = (method: 'joined' | 'left', key: string, correlationId = randomUUID()) => {
    const request = {
      type: 'rpc',
      roomId,
      sentAt: new Date().toISOString(),
      correlationId,
      replyTo,
      ...forwardedCall(method, { key }),
    } as ControllerRequest;
    sent.set(correlationId, request);
    return deliver(request).then(() => correlationId);
  };
  return { call, deliver, failures, sent };
}

describe('one room under 2,000 join/leave cycles and 96 players with many scopes', () => {
  it('stays under its byte budget, answers no 5xx, stays joinable, and a recent left redelivered gets its answer', async () => {
    // Prepare: a ready room of 100 whose configuration names 32 long server scopes.
    const now = new Date();
    const room = aRoom({
      state: 'ready',
      maxPlayers: 100,
      players: 0,
      serverScopes,
      readyAt: now.toISOString(),
      lastHeartbeatAt: now.toISOString(),
      spawnDeadline: new Date(now.getTime() + 60_000).toISOString(),
      placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
    });
    await rooms.createWithMember(room);
    const cycleReplies = await replyQueue();
    const game = sidecarOf(room.roomId, cycleReplies);
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const join = async (token: string) => {
      const response = await api.call('POST', `/v1/rooms/${room.roomId}/join`, { token });
      count(response.status);
      return response;
    };

    // Act 1: 2,000 cycles from 75 accounts, 16 at a time. Each joins over HTTP (one in five is
    // then confirmed by the game's `joined`); three in four leave by the game's `left` (a
    // tombstone), the rest by DELETE …/members/me.
    const accounts = Array.from({ length: 75 }, (_, i) => `auth0|cycler${i}`);
    const tokens = await Promise.all(accounts.map((a) => api.platform.token(a, ['play'])));
    const lefts: { key: string; correlationId: string }[] = [];
    let next = 0;
    const worker = async (w: number) => {
      // Worker w uses only its own accounts, one cycle at a time: no account holds two slots.
      const own = tokens.filter((_, i) => i % 16 === w);
      for (let cycle = next++, n = 0; cycle < 2_000; cycle = next++, n++) {
        const token = own[n % own.length] ?? '';
        const joined = await join(token);
        if (joined.status !== 200) continue;
        const key: string = joined.body.reservation.key;
        // The game may report `left` for a player it never confirmed; one cycle in five connects first.
        if (cycle % 5 === 0) await game.call('joined', key);
        if (cycle % 4 === 3) {
          const left = await api.call('DELETE', `/v1/rooms/${room.roomId}/members/me`, { token });
          count(left.status);
        } else {
          lefts.push({ key, correlationId: await game.call('left', key) });
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    const afterCycles = await rawItem(room.roomId);

    // Act 2: 96 players whose tokens hold the 32 server scopes and 32 more long ones join and
    // are confirmed.
    const scoped = Array.from({ length: 96 }, (_, i) => `auth0|scoped${i}`);
    const scopedTokens = await Promise.all(
      scoped.map((a) =>
        api.platform.token(a, [...serverScopes, ...Array.from({ length: 32 }, (_, i) => scopeOf('idp', i))]),
      ),
    );
    await Promise.all(
      scopedTokens.map(async (token) => {
        const joined = await join(token);
        if (joined.status === 200) await game.call('joined', joined.body.reservation.key);
      }),
    );
    const full = await rawItem(room.roomId);

    // Assess: no 5xx, no message the consumer failed, every reply a result.
    const replies = await drain(cycleReplies);
    const errors = replies.filter((r) => r.type === 'reply' && r.error !== undefined);
    const sizes = { afterCycles: itemBytes(afterCycles), full: itemBytes(full), budget: roomItemBudget.itemBytes };
    process.stdout.write(
      `room item: after 2,000 cycles ${sizes.afterCycles} B (${Object.keys(afterCycles.gone ?? {}).length} tombstones), ` +
        `with 96 scoped members ${sizes.full} B, budget ${sizes.budget} B; HTTP ${JSON.stringify([...statuses])}, ` +
        `${replies.length} replies, ${errors.length} errors, ${game.failures.length} consumer failures\n`,
    );
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect(statuses.get(200)).toBe(2_000 + 96);
    expect(game.failures).toEqual([]);
    expect(errors).toEqual([]);
    expect(replies).toHaveLength(400 + 1_500 + 96);
    expect(Object.keys(afterCycles.gone as object).length).toBeLessThanOrEqual(roomItemBudget.tombstones);
    expect(sizes.full).toBeLessThanOrEqual(roomItemBudget.itemBytes);

    // The room is healthy and joinable: ready, 96 members, one more player gets a slot.
    expect(full).toMatchObject({ state: 'ready', players: 96 });
    const members = await sessions.listMembers(room.roomId);
    expect(members.filter((m) => m.state === 'active')).toHaveLength(96);
    // Each confirmed member holds only what its token can carry: the server scopes it has, capped.
    expect(members.every((m) => m.scopes.every((s) => serverScopes.includes(s)))).toBe(true);
    expect(members.every((m) => m.scopes.length === roomItemBudget.scopeBytes / 64)).toBe(true);
    const late = await join(await api.platform.token('auth0|late', ['play']));
    expect(late.status).toBe(200);

    // A recent `left` delivered again gets its same answer; an old one (its tombstone pruned)
    // is answered "key rejected" and removes nobody.
    const checkReplies = await replyQueue();
    const [latest, oldest] = [lefts.at(-1), lefts[0]];
    for (const left of [latest, oldest]) {
      const request = game.sent.get(left?.correlationId ?? '');
      if (!request) throw new Error('the left was not sent');
      await game.deliver({ ...request, replyTo: checkReplies } as ControllerRequest, 2);
    }
    const answers = await drain(checkReplies);
    const again = answers.find((r) => r.type === 'reply' && r.correlationId === latest?.correlationId);
    const old = answers.find((r) => r.type === 'reply' && r.correlationId === oldest?.correlationId);
    expect(again).toMatchObject({ correlationId: latest?.correlationId, result: { status: 'OK' } });
    expect(old).toMatchObject({ correlationId: oldest?.correlationId, error: { code: rpcErrorCodes.keyRejected } });
    expect((await rooms.get(room.roomId)).players).toBe(97);
  }, 90_000);
});

describe('what one member may store', () => {
  async function readyRoom() {
    const now = new Date();
    const room = aRoom({
      state: 'ready',
      maxPlayers: 4,
      players: 0,
      serverScopes: ['play', 'chat'],
      readyAt: now.toISOString(),
      lastHeartbeatAt: now.toISOString(),
      spawnDeadline: new Date(now.getTime() + 60_000).toISOString(),
      placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
    });
    await rooms.createWithMember(room);
    return room;
  }

  it('a confirmed member stores its scopes once; abandoned puts the reservation back with them', async () => {
    const room = await readyRoom();
    const now = new Date();
    const joined = await api.call('POST', `/v1/rooms/${room.roomId}/join`, {
      token: await api.platform.token('alice', ['admin', 'chat', 'mail', 'play']),
    });
    expect(joined.status).toBe(200);
    const keyHash = hashRegistrationKey(joined.body.reservation.key);
    const read = await sessions.read(room.roomId);
    if (!read) throw new Error('no room');
    const confirmed = await sessions.confirm(read, keyHash, 'joined-1', now);
    expect(confirmed).toMatchObject({ state: 'Confirmed', member: { scopes: ['chat', 'play'] } });
    const stored = (await rawItem(room.roomId)).members as Record<string, Record<string, unknown>>;
    expect(stored.alice).toMatchObject({ s: 2, c: ['chat', 'play'], u: 'joined-1' });
    // The pre-confirmation copy: state and clock only, no second copy of the scopes.
    expect(Object.keys(stored.alice?.b as object).sort()).toEqual(['s', 't']);

    expect(await sessions.abandon(room.roomId, keyHash, 'joined-1', new Date())).toBe('Reverted');
    const restored = (await rawItem(room.roomId)).members as Record<string, Record<string, unknown>>;
    expect(Object.keys(restored.alice ?? {}).sort()).toEqual(['c', 'k', 'n', 's', 't']);
    expect(restored.alice).toMatchObject({ s: 0, c: ['chat', 'play'] });
    // The game's retry confirms it again, with the same scopes.
    const again = await sessions.read(room.roomId);
    if (!again) throw new Error('no room');
    expect(await sessions.confirm(again, keyHash, 'joined-2', new Date())).toMatchObject({
      state: 'Confirmed',
      member: { scopes: ['chat', 'play'] },
    });
  });

  it('an account name longer than 255 bytes is refused 413 before anything is written', async () => {
    const room = await readyRoom();
    const response = await api.call('POST', `/v1/rooms/${room.roomId}/join`, {
      token: await api.platform.token('a'.repeat(256), ['play']),
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(response.body.error.message).toMatch(/account name of 256 bytes cannot hold a slot; the limit is 255/);
    expect(await rawItem(room.roomId)).toMatchObject({ players: 0, members: {} });
  });
});
