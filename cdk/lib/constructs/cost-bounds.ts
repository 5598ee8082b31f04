import { Aws, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { CostBoundDefaults } from '../../../core/infra/config';
import { nagArn, type GameServerFleet } from './game-server-fleet';
import type { ProjectFunction } from './project-function';

/** The cost-bound settings a deployment may change (docs/cost-bounds.md); unset: core/infra/config.ts defaults. */
export type CostBoundSettings = Partial<CostBoundDefaults>;

const variables: Record<keyof CostBoundDefaults, string> = {
  emptyRoomGraceS: 'EMPTY_ROOM_GRACE_S',
  maxLifetimeS: 'MAX_ROOM_LIFETIME_S',
  maxRunningServers: 'MAX_RUNNING_SERVERS',
  maxServersPerConfiguration: 'MAX_SERVERS_PER_CONFIGURATION',
  orphanGraceS: 'ORPHAN_GRACE_S',
};

/** Sets the deployment's cost bounds that differ from the defaults on a function's environment. */
export function bindCostBounds(fn: ProjectFunction, settings: CostBoundSettings = {}): void {
  for (const [key, value] of Object.entries(settings) as [keyof CostBoundDefaults, number | undefined][]) {
    if (value !== undefined) fn.function.addEnvironment(variables[key], String(value));
  }
}

/**
 * What the sweeper's orphan pass needs beyond stopping tasks (core/rooms/sweep-orphans.ts):
 * list and describe the cluster's tasks, and list, age and delete this deployment's reply
 * queues (never another queue).
 */
export function grantOrphanSweeps(fn: ProjectFunction, fleet: GameServerFleet, replyPrefix: string): void {
  const inCluster = fleet.inClusters;
  // ListTasks is authorized on the container instance resource type only: "*" with the cluster condition.
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['ecs:ListTasks'], resources: ['*'], conditions: inCluster }),
  );
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['ecs:DescribeTasks'], resources: fleet.tasksArns, conditions: inCluster }),
  );
  // ECS hosts' heartbeats (core/placement/ecs-host-heartbeats.ts): the container instances'
  // registered and remaining CPU and memory, read only, in the fleet's clusters only.
  const clusterArn = (name: string) => `arn:${Aws.PARTITION}:ecs:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${name}`;
  const instancesArn = (name: string) =>
    `arn:${Aws.PARTITION}:ecs:${Aws.REGION}:${Aws.ACCOUNT_ID}:container-instance/${name}/*`;
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['ecs:ListContainerInstances'],
      resources: [fleet.cluster.clusterArn, ...fleet.clusterNames.slice(1).map(clusterArn)],
    }),
  );
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['ecs:DescribeContainerInstances'],
      resources: fleet.clusterNames.map(instancesArn),
    }),
  );
  for (const name of fleet.clusterNames) {
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(instancesArn(name))}]`,
      reason: `Reads the container instances, whose ids are only known at run time, of the ${name} cluster only.`,
    });
  }
  // ListQueues has no resource type; the prefix is passed in the request (QueueNamePrefix).
  fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:ListQueues'], resources: ['*'] }));
  const replyQueues = `arn:${Aws.PARTITION}:sqs:${Aws.REGION}:${Aws.ACCOUNT_ID}:${replyPrefix}*`;
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['sqs:GetQueueAttributes', 'sqs:DeleteQueue'], resources: [replyQueues] }),
  );
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${replyPrefix}*]`,
    reason:
      'Leftover reply queues are named by room at run time; the grant is GetQueueAttributes and DeleteQueue ' +
      `on queues named ${replyPrefix}* of this deployment only.`,
  });
  Validations.of(fn.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'ecs:ListTasks (container-instance resource type only, limited by the ecs:cluster condition) and ' +
      'sqs:ListQueues (no resource type) cannot name a resource; both only list.',
  });
}
