import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { FunctionNeed } from '../../../core/infra/function-needs';
import type { QueueId } from '../../../core/infra/queues';
import type { CostBoundSettings } from './cost-bounds';
import type { GameServerFleet } from './game-server-fleet';
import type { AuthSettings, ProjectFunction } from './project-function';
import type { ProjectQueue } from './project-queue';

/** What every part of the stack builds its functions against: the resources they share. */
export interface PlatformResources {
  readonly table: dynamodb.TableV2;
  readonly queues: Readonly<Record<QueueId, ProjectQueue>>;
  readonly fleet: GameServerFleet;
  /** Name prefix of the reply queues controller sidecars create (`roomkeeper-prod-reply-`). */
  readonly replyQueuePrefix: string;
  /** The Ed25519 private JWK that signs platform-issued tokens. */
  readonly tokenSigningKey: secretsmanager.ISecret;
  readonly auth: AuthSettings;
  readonly costBounds?: CostBoundSettings;
  readonly logRetention: logs.RetentionDays;
}

/** Binds what a function declares beside its entry (core/infra/function-needs.ts). */
export function bindNeeds(fn: ProjectFunction, needs: readonly FunctionNeed[], platform: PlatformResources): void {
  const { fleet, replyQueuePrefix } = platform;
  if (needs.includes('spawn')) {
    fn.bindFleet(fleet, 'run')
      // A configuration whose revision copies an earlier deploy's controller is registered anew at its next spawn.
      .bindTaskDefinitions(fleet)
      .bindQueue(platform.queues.controllerRequests, 'url')
      .bindReplyQueues(replyQueuePrefix, 'name')
      .bindRoomRegion(Aws.REGION)
      .bindSidecarCredentials(fleet)
      // The sidecar's secrets travel sealed under it; only functions that start servers read it.
      .bindSidecarEnvelope(fleet);
  }
  if (needs.includes('stopServers') && !needs.includes('spawn')) fn.bindFleet(fleet, 'stop');
  if (needs.includes('sidecarCredentials') && !needs.includes('spawn')) fn.bindSidecarCredentials(fleet);
  if (needs.includes('signTokens')) fn.bindTokenSigningKey(platform.tokenSigningKey);
  if (needs.includes('sendCommands')) fn.bindReplyQueues(replyQueuePrefix, 'send');
  if (needs.includes('takeStandby')) fn.bindReplyQueues(replyQueuePrefix, 'assign');
  if (needs.includes('inspectQueues')) for (const queue of Object.values(platform.queues)) mayInspect(fn, queue);
  if (needs.includes('redriveQueues')) for (const queue of Object.values(platform.queues)) mayRedrive(fn, queue);
  // `postToSockets` needs the live API, built after the functions: LiveApi.bindLiveNeeds binds it.
}

/**
 * `inspectQueues`: the queue's URL and attributes, its dead-letter queue's attributes and a
 * receive there (the oldest message's age; never a receive from the source queue), and
 * CloudWatch's GetMetricData for ages, which takes no resource-level permission (the role's
 * `Resource::*` finding is acknowledged by ProjectFunction; the stack test lists what is on "*").
 */
function mayInspect(fn: ProjectFunction, queue: ProjectQueue): void {
  fn.bindQueue(queue, 'observe');
  iam.Grant.addToPrincipal({
    grantee: fn.role,
    actions: ['sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
    resourceArns: [queue.deadLetterQueue.queueArn],
  });
  iam.Grant.addToPrincipal({ grantee: fn.role, actions: ['cloudwatch:GetMetricData'], resourceArns: ['*'] });
}

/** `redriveQueues`: receive, delete and count on the dead-letter queue, send on its source queue. */
function mayRedrive(fn: ProjectFunction, queue: ProjectQueue): void {
  fn.bindQueue(queue, 'send');
  iam.Grant.addToPrincipal({
    grantee: fn.role,
    actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    resourceArns: [queue.deadLetterQueue.queueArn],
  });
}
