import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Spawner } from '../../../core/gameservers/spawner';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueBacklog } from '../../../core/infra/queue-backlog';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import { sweepRooms, type SweepResult } from '../../../core/rooms/sweep';
import { SweeperStateStore } from '../../../core/rooms/sweeper-state-store';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { testSweepPolicy } from '../../helpers/sweep-policy';

/**
 * The sweeper against a stalled heartbeat pipeline: real DynamoDB Local, a real FIFO queue
 * in the SQS emulator read through GetQueueAttributes, heartbeats sent by stand-in sidecars
 * every 2 s and applied by a stand-in consumer that can be stopped. Time is a clock the test
 * moves (one sweep every 5 s), so a 60 s stall runs in about a second.
 */
let platform: TestPlatform;
let rooms: RoomStore;
let sqs: SQSClient;
let queueUrl: string;

const policy = testSweepPolicy;

// A table and a queue per test: the sweeper's memory and the live rooms are the world it judges.
beforeEach(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: `rk-stall-${randomUUID().slice(0, 8)}.fifo`,
      Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false', VisibilityTimeout: '30' },
    }),
  );
  queueUrl = created.QueueUrl ?? '';
});
afterEach(async () => {
  await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  sqs.destroy();
  await platform.close();
});

class RecordingSpawner implements Spawner {
  readonly stopped: string[] = [];
  async spawn(): Promise<never> {
    throw new Error('not used');
  }
  async stop(taskId: string) {
    this.stopped.push(taskId);
  }
}

/** The world of one test: a clock, sidecars that beat, a consumer that may be stalled. */
function world(start: number) {
  let clock = start;
  const spawner = new RecordingSpawner();
  const deps = {
    members: dynamoRoomStore(platform.db, platform.tableName),
    live: new LiveRoomStore(platform.db, platform.tableName),
    rooms,
    spawner,
    memory: new SweeperStateStore(platform.db, platform.tableName),
    backlog: queueBacklog(sqs, queueUrl),
    now: () => new Date(clock),
  };
  return {
    spawner,
    now: () => new Date(clock),
    advance: (seconds: number) => (clock += seconds * 1000),
    sweep: (): Promise<SweepResult> => sweepRooms(deps, policy),
    beat: async (roomIds: string[]) => {
      for (const roomId of roomIds) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageGroupId: roomId,
            MessageDeduplicationId: randomUUID(),
            MessageBody: JSON.stringify({ type: 'heartbeat', roomId, sentAt: new Date(clock).toISOString() }),
          }),
        );
      }
    },
    /** Applies every pending heartbeat at the current clock, as the consumer does. */
    consume: async () => {
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
        );
        if (Messages.length === 0) return;
        for (const message of Messages) {
          const { roomId } = JSON.parse(message.Body ?? '{}') as { roomId: string };
          await rooms.recordHeartbeat(roomId, new Date(clock));
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
        }
      }
    },
  };
}

async function readyRooms(count: number, at: Date): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const room = aRoom({
      state: 'ready',
      spawnDeadline: at.toISOString(),
      lastHeartbeatAt: at.toISOString(),
      placement: { taskId: `task-${i}`, host: '127.0.0.1', ports: [39000 + i] },
    });
    await rooms.createWithMember(room);
    ids.push(room.roomId);
  }
  return ids;
}

describe('sweepRooms during a stall of the heartbeat pipeline', () => {
  it('fails no healthy room while the consumer is stalled for 60 s, and fails a dead one once heartbeats flow again', async () => {
    const w = world(Date.parse('2030-01-01T00:00:00.000Z'));
    const healthy = await readyRooms(6, w.now());
    // Steady state: beats every 2 s, applied at once, a sweep every 5 s (the first only arms the memory).
    for (let s = 0; s < 20; s += 2) {
      await w.beat(healthy);
      await w.consume();
      if (s % 6 === 0) await w.sweep();
      w.advance(2);
    }
    // The consumer stalls (DynamoDB hangs, the pollers stop): sidecars keep sending, nothing is applied.
    const verdicts: string[] = [];
    const stallS = 60;
    for (let s = 0; s < stallS; s += 2) {
      await w.beat(healthy);
      w.advance(2);
      if (s % 4 === 0) {
        const result = await w.sweep();
        verdicts.push(`${result.heartbeats}`);
        expect(result.failed).toEqual([]);
      }
    }
    // Once the healthy rooms would look silent, the backlog is what holds the sweeper back.
    expect(verdicts.slice(3)).toEqual(verdicts.slice(3).map(() => 'backlog'));
    // The consumer resumes and drains the backlog; the sweeper runs on time throughout.
    await w.consume();
    const afterDrain = await w.sweep();
    process.stdout.write(
      `stall of the heartbeat consumer survived: ${stallS} s (timeout ${policy.heartbeatTimeoutS} s), ` +
        `${healthy.length} of ${healthy.length} healthy rooms still ready\n`,
    );
    expect(afterDrain).toMatchObject({ failed: [], heartbeats: 'judged' });
    for (const roomId of healthy) expect((await rooms.get(roomId)).state).toBe('ready');
    expect(w.spawner.stopped).toEqual([]);

    // Now one server really dies: its heartbeats stop, the others' keep flowing.
    const [dead, ...alive] = healthy as [string, ...string[]];
    let failedAt: number | undefined;
    for (let s = 0; s < 30 && failedAt === undefined; s += 1) {
      w.advance(1);
      if (s % 2 === 0) {
        await w.beat(alive);
        await w.consume();
      }
      if (s % 5 === 4 && (await w.sweep()).failed.includes(dead)) failedAt = s + 1;
    }
    expect(failedAt).toBeGreaterThan(policy.heartbeatTimeoutS);
    expect(failedAt).toBeLessThanOrEqual(policy.heartbeatTimeoutS + policy.sweepIntervalS);
    expect(await rooms.get(dead)).toMatchObject({ state: 'failed', failureReason: 'heartbeat-lost' });
    for (const roomId of alive) expect((await rooms.get(roomId)).state).toBe('ready');
  });

  it('fails no healthy room after the whole platform stalled: a late sweep waits one heartbeat timeout', async () => {
    const w = world(Date.parse('2031-01-01T00:00:00.000Z'));
    const healthy = await readyRooms(3, w.now());
    await w.beat(healthy);
    await w.consume();
    await w.sweep();
    // Everything stops for 45 s (SIGSTOP of the process): nothing is sent, applied or swept.
    w.advance(45);
    // The first sweep after it sees an empty queue (the sidecars' sends have not landed yet).
    expect(await w.sweep()).toMatchObject({ failed: [], heartbeats: 'sweep-late' });
    w.advance(3);
    await w.beat(healthy);
    await w.consume();
    w.advance(2);
    expect(await w.sweep()).toMatchObject({ failed: [], heartbeats: 'grace' });
    for (let s = 0; s < 10; s += 1) {
      if (s % 2 === 0) {
        await w.beat(healthy);
        await w.consume();
      }
      w.advance(1);
      if (s % 5 === 4) await w.sweep();
    }
    expect(await w.sweep()).toMatchObject({ failed: [], heartbeats: 'judged' });
    for (const roomId of healthy) expect((await rooms.get(roomId)).state).toBe('ready');
  });
});
