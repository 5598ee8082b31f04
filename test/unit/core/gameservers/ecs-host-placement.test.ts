import {
  DescribeContainerInstancesCommand,
  DescribeTasksCommand,
  ECSClient,
  ListContainerInstancesCommand,
  ListTasksCommand,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { clusterOfTask } from '../../../../core/gameservers/ecs-fleet-listing';
import { ecsHostHeartbeats } from '../../../../core/placement/ecs-host-heartbeats';
import type { Host } from '../../../../core/placement/fleet-model';

const ecsMock = mockClient(ECSClient);
beforeEach(() => ecsMock.reset());

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
