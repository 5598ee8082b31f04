import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { systemClock, type Clock } from '../../../core/infra/clock';
import { controllerReplySchema } from '../../../core/protocol/controller-messages';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { configurePlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestApi, type TestApi } from '../../helpers/platform';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';

/**
 * The command routes through the local gateway on DynamoDB Local and the SQS emulator, with
 * this test as the room's sidecar: it reads the sealed command from the reply queue and
 * answers through the real consumer. The platform's clock skips its waits (a sleep moves it
 * forward at once), so the 10 s hold for an answer that never comes costs no time.
 */
const prefix = `rk-test-reply-${randomUUID().slice(0, 8)}-`;
let api: TestApi;
let sqs: SQSClient;
let rooms: RoomStore;
let alice: string;
let skippedMs = 0;
const channel = new SidecarChannelDouble();
const skippingClock: Clock = {
  now: () => new Date(systemClock.now().getTime() + skippedMs),
  sleep: async (ms) => {
    skippedMs += Math.max(0, ms);
  },
};

beforeAll(async () => {
  api = await startTestApi({ REPLY_QUEUE_PREFIX: prefix, COMMAND_RATE_LIMIT_PER_MINUTE: '3' });
  configurePlatform({ clock: skippingClock });
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  alice = await api.platform.token('alice');
});
afterAll(async () => {
  sqs.destroy();
  await api.close();
});

/** A ready room of alice's whose sidecar's reply queue exists. */
async function readyRoom() {
  const room = aRoom({ owner: 'alice', commands: ['say'], spawnDeadline: new Date(Date.now() + 60_000).toISOString() });
  await rooms.createWithMember(room);
  const { QueueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}${room.roomId}` }));
  return { room, queueUrl: QueueUrl };
}

describe('a command nobody answers in time, answered later', () => {
  it('answers 202 sent with Location; GET shows it sent, then answered once the sidecar answered', async () => {
    const { room, queueUrl } = await readyRoom();
    try {
      const sent = await api.call('POST', `/v1/rooms/${room.roomId}/commands`, {
        token: alice,
        body: { command: 'say', args: { text: 'hello' } },
      });
      expect(sent.status).toBe(202);
      expect(sent.body).toEqual({ commandId: expect.stringMatching(/^[0-9a-f-]{36}$/), state: 'sent' });
      const location = `/v1/rooms/${room.roomId}/commands/${sent.body.commandId}`;
      expect(sent.headers.get('location')).toBe(location);
      expect((await api.call('GET', location, { token: alice })).body).toEqual({
        commandId: sent.body.commandId,
        command: 'say',
        state: 'sent',
      });

      // The sidecar's side: the command on its queue, readable with the room's key only.
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 2 }));
      expect(Messages).toHaveLength(1);
      await channel.keys(room.roomId);
      const command = controllerReplySchema.parse(channel.open(Messages[0]?.Body ?? ''));
      expect(command).toEqual({
        type: 'command',
        commandId: sent.body.commandId,
        method: 'say',
        params: { text: 'hello' },
      });
      const answer = {
        type: 'commandResult',
        roomId: room.roomId,
        sentAt: new Date().toISOString(),
        commandId: sent.body.commandId,
        result: { delivered: 0 },
      } as const;
      const body = await channel.seal(answer);
      await processControllerEvents(controllerQueueEvent([room.roomId], [body]));
      expect((await api.call('GET', location, { token: alice })).body).toEqual({
        commandId: sent.body.commandId,
        command: 'say',
        state: 'answered',
        result: { delivered: 0 },
      });
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
  });

  it("puts the command on the queue of the room's replacement server, not on its first server's", async () => {
    const room = aRoom({ owner: 'alice', commands: ['say'], host: { epoch: 2, seenAt: Date.now() } });
    await rooms.createWithMember(room);
    const queue = async (name: string) => (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? '';
    const [first, replacement] = [await queue(`${prefix}${room.roomId}`), await queue(`${prefix}${room.roomId}-e2`)];
    try {
      const sent = await api.call('POST', `/v1/rooms/${room.roomId}/commands`, {
        token: alice,
        body: { command: 'say', args: { text: 'still there?' } },
      });
      expect(sent.status).toBe(202);
      const received = async (QueueUrl: string, WaitTimeSeconds: number) =>
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds }))).Messages ?? [];
      const [message] = await received(replacement, 2);
      await channel.keys(room.roomId);
      expect(controllerReplySchema.parse(channel.open(message?.Body ?? ''))).toMatchObject({ method: 'say' });
      expect(await received(first, 0)).toEqual([]);
    } finally {
      for (const QueueUrl of [first, replacement]) await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    }
  });

  it('answers 409 ROOM_NOT_READY when the sidecar is gone (no reply queue)', async () => {
    const room = aRoom({ owner: 'alice', commands: ['say'] });
    await rooms.createWithMember(room);
    const sent = await api.call('POST', `/v1/rooms/${room.roomId}/commands`, {
      token: alice,
      body: { command: 'say', args: { text: 'anyone?' } },
    });
    expect([sent.status, sent.body.error.code]).toEqual([409, 'ROOM_NOT_READY']);
    expect(sent.body.error.message).toContain('its game server has ended');
  });

  it('rate-limits commands per account: 429 with Retry-After past COMMAND_RATE_LIMIT_PER_MINUTE', async () => {
    const bob = await api.platform.token('bob');
    const room = aRoom({ owner: 'alice', commands: ['say'] });
    await rooms.createWithMember(room);
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 4; i++) {
      const response = await api.call('POST', `/v1/rooms/${room.roomId}/commands`, {
        token: bob,
        body: { command: 'say', args: { text: 'x' } },
      });
      statuses.push(response.status);
      limited = response;
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
    expect(limited?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('answers 400 for a command id that is not a uuid and 404 for an unknown one', async () => {
    const room = aRoom({ owner: 'alice' });
    await rooms.createWithMember(room);
    const bad = await api.call('GET', `/v1/rooms/${room.roomId}/commands/nope`, { token: alice });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    const unknown = await api.call('GET', `/v1/rooms/${room.roomId}/commands/${randomUUID()}`, { token: alice });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});
