import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import type { ControllerReply, ControllerRequest } from '../../../core/protocol/controller-messages';
import { replyQueueName } from '../../../core/protocol/queue-names';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { Room } from '../../../core/rooms/model';
import type { RoomStore } from '../../../core/rooms/room-store';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';

/**
 * The consumer judges a room's cost bounds at each heartbeat it applies (docs/cost-bounds.md),
 * on DynamoDB Local and the SQS emulator: a room past a bound is closed and its sidecar told
 * `stop` on its reply queue, with no sweeper running.
 */
const prefix = `rk-hb-${randomUUID().slice(0, 8)}-`;
let platform: TestPlatform;
let rooms: RoomStore;
let sqs: SQSClient;
const channel = new SidecarChannelDouble();
const queues: string[] = [];

beforeAll(async () => {
  // The deployment's defaults: an empty room ends 60 s after it emptied, any room after 6 h.
  platform = await startTestPlatform({ REPLY_QUEUE_PREFIX: prefix, EMPTY_ROOM_GRACE_S: '60' });
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
});
afterAll(async () => {
  await Promise.all(queues.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))));
  sqs.destroy();
  await platform.close();
});

const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

/** A ready room with a running server, and the reply queue its sidecar made. */
async function readyRoom(overrides: Partial<Room>): Promise<{ room: Room; replyQueue: string }> {
  const room = aRoom({
    state: 'ready',
    placement: { taskId: `task-${randomUUID()}`, host: '203.0.113.7', ports: [7777] },
    ...overrides,
  });
  await rooms.createWithMember(room);
  const { QueueUrl = '' } = await sqs.send(
    new CreateQueueCommand({ QueueName: replyQueueName(prefix, room.roomId, 1) }),
  );
  queues.push(QueueUrl);
  await channel.keys(room.roomId);
  return { room, replyQueue: QueueUrl };
}

/** Gives the room a member in `state` (code as stored) since `sinceS` ago, counted as a player. */
async function withMember(roomId: string, code: number, sinceS: number): Promise<void> {
  await platform.db.send(
    new UpdateCommand({
      TableName: platform.tableName,
      Key: keys.room(roomId),
      UpdateExpression: 'SET members.bob = :m, players = :one',
      ExpressionAttributeValues: { ':m': { s: code, t: Date.now() - sinceS * 1000 }, ':one': 1 },
    }),
  );
}

const heartbeat = (roomId: string): ControllerRequest => ({
  type: 'heartbeat',
  roomId,
  sentAt: new Date().toISOString(),
  load: { players: 0 },
});

async function deliver(message: ControllerRequest): Promise<void> {
  const outcome = await processControllerEvents(controllerQueueEvent([message.roomId], [await channel.seal(message)]));
  expect(outcome.batchItemFailures).toEqual([]);
}

/** What the platform put on the reply queue (a short wait: the send came before `deliver` returned). */
async function sentTo(queueUrl: string): Promise<ControllerReply[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  return Messages.map((m) => channel.open(m.Body ?? ''));
}

describe('controller-events: cost bounds judged at every heartbeat', () => {
  it('closes a ready room empty past its grace and tells its sidecar to stop (empty); a redelivered heartbeat does nothing more', async () => {
    const { room, replyQueue } = await readyRoom({ createdAt: ago(120), readyAt: ago(90) });

    await deliver(heartbeat(room.roomId));

    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'closed' });
    expect(await sentTo(replyQueue)).toEqual([{ type: 'stop', reason: 'empty' }]);
    await deliver(heartbeat(room.roomId));
    expect(await sentTo(replyQueue)).toEqual([]);
  });

  it('keeps a room whose member waits `ready` (the default template: no readyMs), however long', async () => {
    const { room, replyQueue } = await readyRoom({ createdAt: ago(3_600), readyAt: ago(3_600) });
    await withMember(room.roomId, 1, 3_500);

    await deliver(heartbeat(room.roomId));

    const after = await rooms.get(room.roomId);
    expect(after).toMatchObject({ state: 'ready' });
    expect(Date.parse(after.lastHeartbeatAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(await sentTo(replyQueue)).toEqual([]);
  });

  it('closes a room past its maximum lifetime, players or not, and tells its sidecar to stop (lifetime)', async () => {
    const { room, replyQueue } = await readyRoom({
      createdAt: ago(601),
      readyAt: ago(590),
      bounds: { emptyGraceS: 60, maxLifetimeS: 600 },
    });
    await withMember(room.roomId, 2, 30);

    await deliver(heartbeat(room.roomId));

    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'closed' });
    expect(await sentTo(replyQueue)).toEqual([{ type: 'stop', reason: 'lifetime' }]);
  });
});
