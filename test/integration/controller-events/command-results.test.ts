import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsCommandDelivery } from '../../../core/commands/delivery';
import {
  commandAnswerWindowS,
  maxCommandResultBytes,
  messageLogSize,
  newCommandRecord,
} from '../../../core/commands/model';
import { readMessages } from '../../../core/commands/relay';
import { handleControllerRequest } from '../../../core/controller-events/handle';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import type { ControllerRequest } from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { openReply, sealRequest, sidecarKeys } from '../../../core/protocol/sidecar-channel';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';

/**
 * Issue 12: the controller-events consumer records the game's answers to owners' commands and
 * the game's messages, on real DynamoDB Local, with messages sealed as the room's sidecar
 * seals them. A forged, repeated or late answer changes nothing.
 */
let platform: TestPlatform;
let rooms: RoomStore;
let sqs: SQSClient;
const channel = new SidecarChannelDouble();

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
});
afterAll(async () => {
  sqs.destroy();
  await platform.close();
});

const envelope = { sentAt: new Date().toISOString() };

async function deliver(...messages: ControllerRequest[]) {
  const bodies = await Promise.all(messages.map((m) => channel.seal(m)));
  const response = await processControllerEvents(
    controllerQueueEvent(
      messages.map((m) => m.roomId),
      bodies,
    ),
  );
  expect(response.batchItemFailures).toEqual([]);
}

/** A ready room of alice's with one command `sent` to it. */
async function roomWithCommand(now = new Date()) {
  const room = aRoom({ commands: ['say'] });
  await rooms.createWithMember(room);
  const record = newCommandRecord(
    { roomId: room.roomId, commandId: randomUUID(), account: 'alice', command: 'say', args: { text: 'hi' } },
    now,
  );
  await lambdaPlatform().commands.create(record);
  return { room, record };
}

const result = (roomId: string, commandId: string, answer: { result?: unknown; error?: unknown }) =>
  ({ type: 'commandResult', roomId, commandId, ...envelope, ...answer }) as ControllerRequest;

describe('commandResult', () => {
  it("records the game's result on the room's command once; a repeated result changes nothing", async () => {
    const { room, record } = await roomWithCommand();
    await deliver(result(room.roomId, record.commandId, { result: { delivered: 2 } }));
    await deliver(result(room.roomId, record.commandId, { result: { delivered: 99 } }));
    await deliver(result(room.roomId, record.commandId, { error: { code: -32603, message: 'late error' } }));
    expect(await lambdaPlatform().commands.find(room.roomId, record.commandId)).toMatchObject({
      state: 'answered',
      result: { delivered: 2 },
      answeredAt: expect.any(String),
    });
  });

  it("records the game's JSON-RPC error as failed", async () => {
    const { room, record } = await roomWithCommand();
    await deliver(result(room.roomId, record.commandId, { error: { code: -32602, message: 'text is required' } }));
    expect(await lambdaPlatform().commands.find(room.roomId, record.commandId)).toMatchObject({
      state: 'failed',
      error: { code: -32602, message: 'text is required' },
    });
  });

  it("ignores another room's sidecar answering this room's command (it lands under its own room, where none exists)", async () => {
    const { room, record } = await roomWithCommand();
    const other = aRoom({ commands: ['say'] });
    await rooms.createWithMember(other);
    await deliver(result(other.roomId, record.commandId, { result: { forged: true } }));
    expect(await lambdaPlatform().commands.find(room.roomId, record.commandId)).toMatchObject({ state: 'sent' });
    expect(await lambdaPlatform().commands.find(other.roomId, record.commandId)).toBeUndefined();
    const { Item } = await platform.db.send(
      new GetCommand({ TableName: platform.tableName, Key: keys.command(other.roomId, record.commandId) }),
    );
    expect(Item).toBeUndefined();
  });

  it("drops a result MAC'd with another room's key, or speaking for another room, before it is applied", async () => {
    const { room, record } = await roomWithCommand();
    const other = aRoom();
    const forgedKeys = await channel.keys(other.roomId);
    const speaksForRoom = JSON.stringify(result(room.roomId, record.commandId, { result: { forged: 1 } }));
    const bodies = [
      // Another room's sidecar, naming this room in its payload.
      JSON.stringify(sealRequest(forgedKeys, speaksForRoom)),
      // This room named in the envelope, but MAC'd with a key derived from another secret.
      JSON.stringify(sealRequest(sidecarKeys(Buffer.alloc(32, 7), room.roomId), speaksForRoom)),
    ];
    const response = await processControllerEvents(controllerQueueEvent([other.roomId, room.roomId], bodies));
    expect(response.batchItemFailures).toEqual([]);
    expect(await lambdaPlatform().commands.find(room.roomId, record.commandId)).toMatchObject({ state: 'sent' });
  });

  it('ignores an answer for a command that does not exist, and one after the answer window', async () => {
    const room = aRoom();
    await rooms.createWithMember(room);
    const unknown = randomUUID();
    await deliver(result(room.roomId, unknown, { result: 1 }));
    expect(await lambdaPlatform().commands.find(room.roomId, unknown)).toBeUndefined();

    const old = await roomWithCommand(new Date(Date.now() - (commandAnswerWindowS + 1) * 1000));
    await deliver(result(old.room.roomId, old.record.commandId, { result: 'too late' }));
    expect(await lambdaPlatform().commands.find(old.room.roomId, old.record.commandId)).toMatchObject({
      state: 'sent',
    });
  });

  it('stores a result over 16 KiB as the error "result too large"', async () => {
    const { room, record } = await roomWithCommand();
    await deliver(result(room.roomId, record.commandId, { result: { blob: 'x'.repeat(maxCommandResultBytes) } }));
    const stored = await lambdaPlatform().commands.find(room.roomId, record.commandId);
    expect(stored).toMatchObject({ state: 'failed', error: { code: rpcErrorCodes.messageTooLarge } });
    expect(stored?.error?.message).toContain('too large');
    expect(stored?.result).toBeUndefined();
  });
});

describe('message', () => {
  const message = (roomId: string, data: unknown, messageId = randomUUID()) =>
    ({ type: 'message', roomId, messageId, data, ...envelope }) as ControllerRequest;
  const read = (roomId: string, after = 0) =>
    readMessages(
      { roomId, account: 'alice', after, waitS: 0 },
      { rooms, messages: lambdaPlatform().roomMessages, now: () => new Date(), sleep: async () => undefined },
    );

  it('appends messages with increasing seqs; a redelivered message keeps its seq and is stored once', async () => {
    const room = aRoom();
    await rooms.createWithMember(room);
    const first = message(room.roomId, { hp: 3 });
    await deliver(first);
    await deliver(first);
    await deliver(message(room.roomId, { hp: 2 }));
    const { messages, next } = await read(room.roomId);
    expect(messages.map((m) => [m.seq, m.data])).toEqual([
      [1, { hp: 3 }],
      [2, { hp: 2 }],
    ]);
    expect(next).toBe(2);
    expect((await read(room.roomId, 1)).messages.map((m) => m.seq)).toEqual([2]);
  });

  it('drops data that cannot be stored exactly, or is over 4 KiB', async () => {
    const room = aRoom();
    await rooms.createWithMember(room);
    await deliver(
      message(room.roomId, { n: 2 ** 60 }),
      message(room.roomId, { text: 'x'.repeat(4096) }),
      message(room.roomId, 'not an object'),
      message(room.roomId, { ok: true }),
    );
    expect((await read(room.roomId)).messages.map((m) => m.data)).toEqual([{ ok: true }]);
  });

  it('logs one warning per dropped message, naming the room and why, and stores nothing', async () => {
    const room = aRoom();
    await rooms.createWithMember(room);
    const warnings: { message: unknown; attributes: unknown[] }[] = [];
    const p = lambdaPlatform();
    // Straight to the use case, with the consumer's stores and a log that records.
    const handle = (request: ControllerRequest) =>
      handleControllerRequest(request, {
        rooms: p.rooms,
        signToken: p.signToken,
        verifyServerToken: p.verifyPlatformToken,
        reply: () => Promise.reject(new Error('a message is never answered')),
        locateServer: p.locateServer,
        now: () => new Date(),
        commands: p.commands,
        messages: p.roomMessages,
        protocolComponents: p.protocolComponents,
        configurations: p.gameConfigurations,
        deliver: p.deliverCommand,
        log: { warn: (message, ...attributes) => void warnings.push({ message, attributes }), info: () => undefined },
      });
    const [unstorable, notAnObject] = [randomUUID(), randomUUID()];
    await handle(message(room.roomId, { n: 2 ** 60 }, unstorable));
    await handle(message(room.roomId, 'not an object', notAnObject));
    expect(warnings).toEqual([
      {
        message: 'dropping a game message the platform cannot store',
        attributes: [{ roomId: room.roomId, messageId: unstorable, reason: expect.stringMatching(/^n: .*integer/) }],
      },
      {
        message: 'dropping a game message the platform cannot store',
        attributes: [{ roomId: room.roomId, messageId: notAnObject, reason: '(root): must be a JSON object' }],
      },
    ]);
    expect(await read(room.roomId)).toEqual({ messages: [], next: 0 });
    await handle(message(room.roomId, { ok: true }));
    expect(warnings).toHaveLength(2);
    expect((await read(room.roomId)).messages.map((m) => m.data)).toEqual([{ ok: true }]);
  });

  it(`keeps the last ${messageLogSize} messages`, async () => {
    const room = aRoom();
    await rooms.createWithMember(room);
    const all = Array.from({ length: messageLogSize + 5 }, (_, i) => message(room.roomId, { i }));
    for (let i = 0; i < all.length; i += 10) await deliver(...all.slice(i, i + 10));
    const { messages, next } = await read(room.roomId);
    expect(messages).toHaveLength(messageLogSize);
    expect(messages[0]).toMatchObject({ seq: 6, data: { i: 5 } });
    expect(next).toBe(messageLogSize + 5);
  }, 60_000);
});

describe('sqsCommandDelivery', () => {
  it.each([
    ['derived beside a known queue URL', (url: string) => queueUrlResolver(sqs, url)],
    ['looked up with GetQueueUrl', () => queueUrlResolver(sqs)],
  ])(
    "puts the command on the room's reply queue (its URL %s), sealed so that only the room's sidecar reads it",
    async (_, resolver) => {
      const prefix = `rk-test-reply-${randomUUID().slice(0, 8)}-`;
      const room = aRoom();
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}${room.roomId}` }));
      try {
        const deliver = sqsCommandDelivery(
          sqs,
          prefix,
          (roomId) => lambdaPlatform().sidecarKeys(roomId),
          resolver(QueueUrl ?? ''),
        );
        const command = { type: 'command', commandId: 'c1', method: 'say', params: { text: 'hi' } } as const;
        expect(await deliver(room.roomId, command, 1)).toBe('delivered');
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 2 }));
        expect(Messages).toHaveLength(1);
        const body = Messages[0]?.Body ?? '';
        expect(body).not.toContain('say');
        expect(JSON.parse(openReply(await channel.keys(room.roomId), body) ?? 'null')).toEqual(command);
        expect(openReply(await channel.keys(aRoom().roomId), body)).toBeUndefined();
        // No queue: the sidecar is gone.
        expect(await deliver(aRoom().roomId, command, 1)).toBe('gone');
      } finally {
        await sqs.send(new DeleteQueueCommand({ QueueUrl }));
      }
    },
  );
});
