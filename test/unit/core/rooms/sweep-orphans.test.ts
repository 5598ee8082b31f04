import { DescribeTasksCommand, ECSClient, ListTasksCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import type { ReplyQueue, ReplyQueues } from '../../../../core/gameservers/reply-queues';
import type { ServerLease } from '../../../../core/gameservers/server-slot-store';
import type { Room } from '../../../../core/rooms/model';
import { isOrphan, sweepOrphans } from '../../../../core/rooms/sweep-orphans';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { aRoom } from '../../../helpers/factories';

/**
 * The cost-bound backstop: tasks, server slots and reply queues of rooms that are not live
 * are ended once older than the grace; ECS is asked with ListTasks/DescribeTasks/StopTask.
 */
const now = new Date('2026-01-01T01:00:00.000Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const ecsMock = mockClient(ECSClient);
const arn = (id: string) => `arn:aws:ecs:eu-west-1:1:task/games/${id}`;

function ecsSpawner() {
  return new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
    cluster: 'games',
    taskDefinition: 'roomkeeper-game:3',
    subnets: ['subnet-a'],
    securityGroups: ['sg-1'],
    controllerContainer: 'controller',
    sidecar: {
      region: 'eu-west-1',
      controllerRequestQueueUrl: 'https://sqs/controller-requests.fifo',
      replyQueuePrefix: 'rk-reply-',
      discoveryServices: {},
    },
    sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 1), roomId)),
  });
}

/** Rooms as a strong read finds them. */
function roomsOf(...rooms: Room[]) {
  const reads: string[] = [];
  return {
    reads,
    find: async (roomId: string) => {
      reads.push(roomId);
      return rooms.find((r) => r.roomId === roomId);
    },
  };
}

beforeEach(() => ecsMock.reset());

describe('isOrphan', () => {
  const live = new Set(['live']);
  it('is an orphan only when its room is not live and it is older than the grace', () => {
    expect(isOrphan({ roomId: 'gone', since: ago(300) }, live, now, 300)).toBe(true);
    expect(isOrphan({ roomId: 'gone', since: ago(299) }, live, now, 300)).toBe(false);
    expect(isOrphan({ roomId: 'live', since: ago(9999) }, live, now, 300)).toBe(false);
    expect(isOrphan({ since: ago(300) }, live, now, 300)).toBe(true);
    expect(isOrphan({ roomId: 'gone' }, live, now, 300)).toBe(false);
  });
});

describe('sweepOrphans on ECS', () => {
  it("lists the cluster's room tasks, and stops those whose room is not live, sparing young and live ones", async () => {
    ecsMock
      .on(ListTasksCommand)
      .resolvesOnce({ taskArns: [arn('closed'), arn('young')], nextToken: 'page-2' })
      .resolvesOnce({ taskArns: [arn('live'), arn('lagging'), arn('untagged')] });
    ecsMock.on(DescribeTasksCommand).resolves({
      tasks: [
        { taskArn: arn('closed'), createdAt: ago(600), tags: [{ key: 'roomkeeper:room', value: 'closed' }] },
        { taskArn: arn('young'), createdAt: ago(10), tags: [{ key: 'roomkeeper:room', value: 'young' }] },
        { taskArn: arn('live'), createdAt: ago(600), tags: [{ key: 'roomkeeper:room', value: 'live' }] },
        { taskArn: arn('lagging'), createdAt: ago(600), tags: [{ key: 'roomkeeper:room', value: 'lagging' }] },
        { taskArn: arn('untagged'), createdAt: ago(600), tags: [] },
      ],
    });
    ecsMock.on(StopTaskCommand).resolves({});
    // `lagging` is live, but the sweeper's index did not show it yet: the strong read does.
    const rooms = roomsOf(aRoom({ roomId: 'closed', state: 'closed' }), aRoom({ roomId: 'lagging', state: 'ready' }));

    const result = await sweepOrphans(
      new Set(['live']),
      { spawner: ecsSpawner(), rooms, now: () => now },
      { graceS: 300 },
    );

    expect(result.stoppedTasks).toEqual([arn('closed'), arn('untagged')]);
    expect(ecsMock.commandCalls(ListTasksCommand).map((c) => c.args[0].input)).toEqual([
      { cluster: 'games', startedBy: 'roomkeeper', desiredStatus: 'RUNNING', maxResults: 100, nextToken: undefined },
      { cluster: 'games', startedBy: 'roomkeeper', desiredStatus: 'RUNNING', maxResults: 100, nextToken: 'page-2' },
    ]);
    expect(ecsMock.commandCalls(DescribeTasksCommand)[0]?.args[0].input).toEqual({
      cluster: 'games',
      tasks: [arn('closed'), arn('young'), arn('live'), arn('lagging'), arn('untagged')],
      include: ['TAGS'],
    });
    expect(ecsMock.commandCalls(StopTaskCommand).map((c) => c.args[0].input)).toEqual([
      { cluster: 'games', task: arn('closed'), reason: 'orphan: room not live' },
      { cluster: 'games', task: arn('untagged'), reason: 'orphan: room not live' },
    ]);
    expect(rooms.reads).toEqual(['closed', 'lagging']);
  });

  it('releases server slots and deletes reply queues whose room ended, once older than the grace', async () => {
    ecsMock.on(ListTasksCommand).resolves({ taskArns: [] });
    const released: string[] = [];
    const leases: ServerLease[] = [
      { roomId: 'ended', gameId: 'g', version: '1', acquiredAt: ago(4000).toISOString() },
      { roomId: 'creating', gameId: 'g', version: '1', acquiredAt: ago(2).toISOString() },
      { roomId: 'live', gameId: 'g', version: '1', acquiredAt: ago(4000).toISOString() },
    ];
    const listed: ReplyQueue[] = [
      { url: 'https://sqs/1/rk-reply-ended', roomId: 'ended', createdAt: ago(4000) },
      { url: 'https://sqs/1/rk-reply-creating', roomId: 'creating', createdAt: ago(2) },
      { url: 'https://sqs/1/rk-reply-live', roomId: 'live', createdAt: ago(4000) },
    ];
    const deleted: string[] = [];
    const queues: ReplyQueues = { list: async () => listed, delete: async (url) => void deleted.push(url) };

    const result = await sweepOrphans(
      new Set(['live']),
      {
        spawner: ecsSpawner(),
        rooms: roomsOf(aRoom({ roomId: 'ended', state: 'failed' })),
        slots: { leases: async () => leases, release: async (roomId) => (released.push(roomId), true) },
        queues,
        now: () => now,
      },
      { graceS: 300 },
    );

    expect(released).toEqual(['ended']);
    expect(deleted).toEqual(['https://sqs/1/rk-reply-ended']);
    expect(result).toEqual({
      stoppedTasks: [],
      releasedSlots: ['ended'],
      deletedQueues: ['https://sqs/1/rk-reply-ended'],
    });
  });
});
