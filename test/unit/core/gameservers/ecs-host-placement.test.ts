import {
  DescribeContainerInstancesCommand,
  DescribeTasksCommand,
  ECSClient,
  ListContainerInstancesCommand,
  ListTasksCommand,
  RunTaskCommand,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { clusterOfTask } from '../../../../core/gameservers/ecs-fleet-listing';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import type { SpawnRequest } from '../../../../core/gameservers/spawner';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { ecsHostHeartbeats } from '../../../../core/placement/ecs-host-heartbeats';
import type { Host } from '../../../../core/placement/fleet-model';

const ecsMock = mockClient(ECSClient);
beforeEach(() => ecsMock.reset());

const request: SpawnRequest = {
  roomId: 'room-7',
  region: 'eu-west-1',
  maxPlayers: 8,
  roomSettings: {},
  loginAccessToken: 'server-token',
  configuration: {
    gameId: 'arena',
    version: '1.0.0',
    updatedAt: '2026-01-01T00:00:00.000Z',
    image: 'registry/arena:1.0.0',
    args: [],
    env: {},
    ports: 1,
    maxPlayers: 8,
    serverSettings: {},
    spawnTimeoutS: 10,
    reservationTimeoutS: 30,
    commands: [],
    serverScopes: [],
  },
};

function spawner(hostClusters: readonly string[] = []) {
  return new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
    cluster: 'games',
    hostClusters: () => Promise.resolve(hostClusters),
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

describe('ECS placement into the chosen host', () => {
  beforeEach(() => {
    ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/games-b/abc' }] });
  });

  it('starts the task in the host cluster through its capacity provider, with no launch type', async () => {
    await spawner().spawn({
      ...request,
      host: { hostId: 'eu-b', ecs: { cluster: 'games-b', capacityProvider: 'spot' } },
    });
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games-b');
    expect(input?.capacityProviderStrategy).toEqual([{ capacityProvider: 'spot', weight: 1 }]);
    expect(input).not.toHaveProperty('launchType');
    expect(input?.clientToken).toBe('room-7');
  });

  it('starts the task on Fargate in the host cluster when the host names no capacity provider', async () => {
    await spawner().spawn({ ...request, host: { hostId: 'eu-c', ecs: { cluster: 'games-c' } } });
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games-c');
    expect(input?.launchType).toBe('FARGATE');
    expect(input).not.toHaveProperty('capacityProviderStrategy');
  });

  it("keeps the stack's cluster and Fargate without a host", async () => {
    await spawner().spawn(request);
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games');
    expect(input?.launchType).toBe('FARGATE');
  });

  it('stops a task in the cluster its ARN names', async () => {
    ecsMock.on(StopTaskCommand).resolves({});
    await spawner().stop('arn:aws:ecs:eu-west-1:123456789012:task/games-b/0123abcd', 'closed');
    await spawner().stop('arn:aws:ecs:eu-west-1:123456789012:task/0123abcd', 'closed');
    const clusters = ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input.cluster);
    expect(clusters).toEqual(['games-b', 'games']);
  });

  it("lists the room tasks of the stack's cluster and of every host cluster, once each", async () => {
    ecsMock.on(ListTasksCommand).callsFake((input: { cluster: string }) => ({
      taskArns: [`arn:aws:ecs:eu-west-1:1:task/${input.cluster}/t1`],
    }));
    ecsMock.on(DescribeTasksCommand).callsFake((input: { tasks: string[] }) => ({
      tasks: input.tasks.map((taskArn) => ({ taskArn, tags: [{ key: 'roomkeeper:room', value: taskArn }] })),
    }));
    const servers = await spawner(['games-b', 'games', 'games-c']).listServers();
    expect(servers.map((s) => s.taskId).sort()).toEqual([
      'arn:aws:ecs:eu-west-1:1:task/games-b/t1',
      'arn:aws:ecs:eu-west-1:1:task/games-c/t1',
      'arn:aws:ecs:eu-west-1:1:task/games/t1',
    ]);
  });
});

describe('clusterOfTask', () => {
  it.each([
    ['arn:aws:ecs:us-east-1:123456789012:task/prod-games/8f1e2d', 'prod-games'],
    ['arn:aws-cn:ecs:cn-north-1:123456789012:task/cn_games/8f1e2d', 'cn_games'],
    ['arn:aws:ecs:us-east-1:123456789012:task/8f1e2d', 'fallback'],
    ['local:room-1', 'fallback'],
  ])('%s → %s', (arn, cluster) => {
    expect(clusterOfTask(arn, 'fallback')).toBe(cluster);
  });
});

describe('ecsHostHeartbeats', () => {
  const host = (hostId: string, cluster: string): Host => ({
    hostId,
    region: 'eu-west-1',
    maxServers: 50,
    limits: { cpu: 0.9, memory: 0.9 },
    heartbeatTimeoutS: 180,
    draining: false,
    placed: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    ecs: { cluster },
  });

  it('measures each cluster once: room tasks, and CPU and memory its instances reserved', async () => {
    ecsMock.on(ListTasksCommand, { cluster: 'ec2-games' }).resolves({ taskArns: ['a', 'b', 'c'] });
    ecsMock.on(ListTasksCommand, { cluster: 'fargate-games' }).resolves({ taskArns: [] });
    ecsMock.on(DescribeTasksCommand).callsFake((input: { tasks: string[] }) => ({
      tasks: input.tasks.map((taskArn) => ({ taskArn })),
    }));
    ecsMock
      .on(ListContainerInstancesCommand, { cluster: 'ec2-games' })
      .resolves({ containerInstanceArns: ['i1', 'i2'] });
    ecsMock.on(ListContainerInstancesCommand, { cluster: 'fargate-games' }).resolves({ containerInstanceArns: [] });
    const resources = (cpu: number, memory: number) => [
      { name: 'CPU', integerValue: cpu },
      { name: 'MEMORY', integerValue: memory },
    ];
    ecsMock.on(DescribeContainerInstancesCommand).resolves({
      containerInstances: [
        { registeredResources: resources(2048, 4096), remainingResources: resources(512, 2048) },
        { registeredResources: resources(2048, 4096), remainingResources: resources(1536, 3072) },
      ],
    });
    const beats = await ecsHostHeartbeats(new ECSClient({ region: 'eu-west-1' }), {
      regions: [],
      hosts: [host('a', 'ec2-games'), host('b', 'ec2-games'), host('f', 'fargate-games')],
    });
    expect(beats).toEqual([
      { hostId: 'a', beat: { servers: 3, cpu: 0.5, memory: 0.375 } },
      { hostId: 'b', beat: { servers: 3, cpu: 0.5, memory: 0.375 } },
      { hostId: 'f', beat: { servers: 0, cpu: 0, memory: 0 } },
    ]);
    expect(ecsMock.commandCalls(ListContainerInstancesCommand)).toHaveLength(2);
  });
});
