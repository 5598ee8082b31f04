import { DescribeTasksCommand, ECSClient, ListTasksCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { DeleteQueueCommand, GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { SqsReplyQueues, type ReplyQueue, type ReplyQueues } from '../../../../core/gameservers/reply-queues';
import type { ServerLease } from '../../../../core/gameservers/server-slot-store';
import type { Room } from '../../../../core/rooms/model';
import { isOrphan, sweepOrphans } from '../../../../core/rooms/sweep-orphans';
import { isLive } from '../../../../core/rooms/model';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { aRoom } from '../../../helpers/factories';

/**
 * The cost-bound backstop: tasks, server slots and reply queues of rooms that are not live
 * are ended once older than the grace; ECS is asked with ListTasks/DescribeTasks/StopTask.
 */
const now = new Date('2026-01-01T01:00:00.000Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);
const ecsMock = mockClient(ECSClient);
const sqsMock = mockClient(SQSClient);
const arn = (id: string) => `arn:aws:ecs:eu-west-1:1:task/games/${id}`;
/** Rooms the room sweep saw live, each with its first server (epoch 1). */
const liveRooms = (...roomIds: string[]) => new Map(roomIds.map((roomId) => [roomId, 1]));

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

/** Rooms as a strong read finds them, recording the ids each (batched) read asked about. */
function roomsOf(...rooms: Room[]) {
  const reads: string[][] = [];
  return {
    reads,
    liveAmong: async (roomIds: readonly string[]) => {
      reads.push([...roomIds]);
      return new Set(roomIds.filter((id) => rooms.some((r) => r.roomId === id && isLive(r.state))));
    },
  };
}

beforeEach(() => {
  ecsMock.reset();
  sqsMock.reset();
});

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
      .resolvesOnce({ taskArns: [arn('live'), arn('lagging'), arn('untagged'), arn('stopping'), arn('stopped')] });
    const tagged = (id: string) => [{ key: 'roomkeeper:room', value: id }];
    const running = { desiredStatus: 'RUNNING', lastStatus: 'RUNNING' };
    ecsMock.on(DescribeTasksCommand).resolves({
      tasks: [
        { taskArn: arn('closed'), createdAt: ago(600), tags: tagged('closed'), ...running },
        { taskArn: arn('young'), createdAt: ago(10), tags: tagged('young'), ...running },
        { taskArn: arn('live'), createdAt: ago(600), tags: tagged('live'), ...running },
        { taskArn: arn('lagging'), createdAt: ago(600), tags: tagged('lagging'), ...running },
        { taskArn: arn('untagged'), createdAt: ago(600), tags: [], ...running },
        // ListTasks without `desiredStatus` also lists tasks ECS is stopping or has stopped.
        {
          taskArn: arn('stopping'),
          createdAt: ago(600),
          tags: tagged('gone'),
          desiredStatus: 'STOPPED',
          lastStatus: 'RUNNING',
        },
        {
          taskArn: arn('stopped'),
          createdAt: ago(600),
          tags: tagged('gone'),
          desiredStatus: 'STOPPED',
          lastStatus: 'STOPPED',
        },
      ],
    });
    ecsMock.on(StopTaskCommand).resolves({});
    // `lagging` is live, but the sweeper's index did not show it yet: the strong read does.
    const rooms = roomsOf(aRoom({ roomId: 'closed', state: 'closed' }), aRoom({ roomId: 'lagging', state: 'ready' }));

    const result = await sweepOrphans(
      liveRooms('live'),
      { spawner: ecsSpawner(), rooms, now: () => now },
      { graceS: 300 },
    );

    expect(result.stoppedTasks).toEqual([arn('closed'), arn('untagged')]);
    // `startedBy` must be the only filter (ECS API reference, ListTasks): no `desiredStatus`.
    const listed = ecsMock.commandCalls(ListTasksCommand).map((c) => c.args[0].input);
    expect(listed).toEqual([
      { cluster: 'games', startedBy: 'roomkeeper', maxResults: 100, nextToken: undefined },
      { cluster: 'games', startedBy: 'roomkeeper', maxResults: 100, nextToken: 'page-2' },
    ]);
    for (const input of listed)
      expect(Object.keys(input).sort()).toEqual(['cluster', 'maxResults', 'nextToken', 'startedBy']);
    expect(ecsMock.commandCalls(DescribeTasksCommand)[0]?.args[0].input).toEqual({
      cluster: 'games',
      tasks: [
        arn('closed'),
        arn('young'),
        arn('live'),
        arn('lagging'),
        arn('untagged'),
        arn('stopping'),
        arn('stopped'),
      ],
      include: ['TAGS'],
    });
    expect(ecsMock.commandCalls(StopTaskCommand).map((c) => c.args[0].input)).toEqual([
      { cluster: 'games', task: arn('closed'), reason: 'orphan: room not live' },
      { cluster: 'games', task: arn('untagged'), reason: 'orphan: room not live' },
    ]);
    expect(rooms.reads).toEqual([['closed', 'lagging']]);
  });

  it('releases server slots and deletes reply queues whose room ended, once older than the grace', async () => {
    ecsMock.on(ListTasksCommand).resolves({ taskArns: [] });
    const released: string[] = [];
    const leases: ServerLease[] = [
      { roomId: 'ended', gameId: 'g', version: '1', acquiredAt: ago(4000).toISOString() },
      { roomId: 'creating', gameId: 'g', version: '1', acquiredAt: ago(2).toISOString() },
      { roomId: 'live', gameId: 'g', version: '1', acquiredAt: ago(4000).toISOString() },
    ];
    const created: Record<string, Date> = {
      'https://sqs/1/rk-reply-ended': ago(4000),
      'https://sqs/1/rk-reply-creating': ago(2),
      'https://sqs/1/rk-reply-live': ago(4000),
    };
    const listed: ReplyQueue[] = Object.keys(created).map((url) => ({
      url,
      roomId: url.split('rk-reply-')[1] ?? '',
      epoch: 1,
    }));
    const deleted: string[] = [];
    const queues: ReplyQueues = {
      list: async () => listed,
      createdAt: async (url) => created[url],
      delete: async (url) => void deleted.push(url),
    };

    const result = await sweepOrphans(
      liveRooms('live'),
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
      cutShort: false,
    });
  });
});

describe('sweepOrphans on reply queues (SQS)', () => {
  const prefix = 'rk-reply-';
  const url = (name: string) => `https://sqs.eu-west-1.amazonaws.com/1/${prefix}${name}`;
  const noServers = { stop: async () => undefined, listServers: async () => [] };

  it('asks no queue its age when its room is live: 2,000 live rooms cost ListQueues and one batched read, no GetQueueAttributes', async () => {
    const liveIds = Array.from({ length: 2000 }, (_, i) => `room-${i}`);
    const names = [...liveIds.flatMap((id) => [id, `${id}-assign`]), 'ended', 'ended-assign', 'fresh'];
    sqsMock
      .on(ListQueuesCommand)
      .resolvesOnce({ QueueUrls: names.slice(0, 1000).map(url), NextToken: 'more' })
      .resolvesOnce({ QueueUrls: names.slice(1000, 2000).map(url), NextToken: 'more-2' })
      .resolvesOnce({ QueueUrls: names.slice(2000, 3000).map(url), NextToken: 'more-3' })
      .resolvesOnce({ QueueUrls: names.slice(3000, 4000).map(url), NextToken: 'more-4' })
      .resolvesOnce({ QueueUrls: names.slice(4000).map(url) });
    const createdAt = (seconds: number) => ({ Attributes: { CreatedTimestamp: String(seconds) } });
    const epochS = (d: Date) => Math.floor(d.getTime() / 1000);
    sqsMock
      .on(GetQueueAttributesCommand)
      .resolves(createdAt(epochS(ago(4000))))
      .on(GetQueueAttributesCommand, { QueueUrl: url('fresh') })
      .resolves(createdAt(epochS(ago(10))));
    sqsMock.on(DeleteQueueCommand).resolves({});
    // Half the live rooms are not in the sweep's live set yet (a lagging index): a strong read finds them live.
    const rooms = roomsOf(...liveIds.map((roomId) => aRoom({ roomId, state: 'ready' })));

    const result = await sweepOrphans(
      liveRooms(...liveIds.slice(0, 1000)),
      {
        spawner: noServers,
        rooms,
        queues: new SqsReplyQueues(new SQSClient({ region: 'eu-west-1' }), prefix),
        now: () => now,
      },
      { graceS: 300 },
    );

    expect(result.deletedQueues.sort()).toEqual([url('ended'), url('ended-assign')]);
    expect(
      sqsMock
        .commandCalls(GetQueueAttributesCommand)
        .map((c) => c.args[0].input.QueueUrl)
        .sort(),
    ).toEqual([url('ended'), url('ended-assign'), url('fresh')]);
    expect(sqsMock.commandCalls(ListQueuesCommand)[0]?.args[0].input).toEqual({
      QueueNamePrefix: prefix,
      MaxResults: 1000,
      NextToken: undefined,
    });
    // One read for the candidates, batched by the room index (100 keys a BatchGetItem there).
    expect(rooms.reads).toHaveLength(1);
    expect(new Set(rooms.reads[0])).toEqual(new Set([...liveIds.slice(1000), 'ended', 'fresh']));
  });

  it("deletes a live room's queues of the servers it replaced, whatever their age, and keeps its current server's", async () => {
    // `replaced` runs its server of epoch 3; `kept` its first. Queue names carry the epoch.
    const names = ['replaced', 'replaced-assign', 'replaced-e2', 'replaced-e3', 'kept', 'kept-assign'];
    sqsMock.on(ListQueuesCommand).resolves({ QueueUrls: names.map(url) });
    sqsMock.on(DeleteQueueCommand).resolves({});
    const rooms = roomsOf();

    const result = await sweepOrphans(
      new Map([
        ['replaced', 3],
        ['kept', 1],
      ]),
      {
        spawner: noServers,
        rooms,
        queues: new SqsReplyQueues(new SQSClient({ region: 'eu-west-1' }), prefix),
        now: () => now,
      },
      { graceS: 300 },
    );

    const superseded = [url('replaced'), url('replaced-assign'), url('replaced-e2')];
    expect(result.deletedQueues.sort()).toEqual(superseded.sort());
    expect(
      sqsMock
        .commandCalls(DeleteQueueCommand)
        .map((c) => c.args[0].input)
        .sort((a, b) => String(a.QueueUrl).localeCompare(String(b.QueueUrl))),
    ).toEqual(superseded.sort().map((QueueUrl) => ({ QueueUrl })));
    // The room's epoch settles it: no queue is asked its age, no room is read again.
    expect(sqsMock.commandCalls(GetQueueAttributesCommand)).toEqual([]);
    expect(rooms.reads).toEqual([]);
  });

  it('starts no new call once past its stop time, and says the next run continues', async () => {
    const queues: ReplyQueues = {
      list: async () => [{ url: url('ended'), roomId: 'ended', epoch: 1 }],
      createdAt: async () => ago(4000),
      delete: async () => {
        throw new Error('not past the stop time');
      },
    };
    let clock = now.getTime();
    const rooms = roomsOf();
    const result = await sweepOrphans(
      liveRooms(),
      {
        spawner: noServers,
        rooms: { liveAmong: async (ids) => ((clock += 5_000), rooms.liveAmong(ids)) },
        queues,
        now: () => new Date(clock),
      },
      { graceS: 300, stopBy: new Date(now.getTime() + 1_000) },
    );
    expect(result).toEqual({ stoppedTasks: [], releasedSlots: [], deletedQueues: [], cutShort: true });
  });
});
