import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import type { SidecarCredentials } from '../protocol/controller-messages';
import { assignQueueName, replyQueueName } from '../protocol/queue-names';
import { SpawnFailedError } from './errors';

/**
 * Deployed game server tasks have no task role: ECS would hand its credentials to every
 * container of the task, the game's included. Instead the platform assumes a dedicated
 * sidecar role for each room with a session policy that narrows it to that room's queues,
 * and gives the temporary credentials to the controller container alone.
 *
 *   spawn ──AssumeRole(sidecar role, Policy = this room only)──► controller container env
 *   every ~45 min: sidecar ──sealed `credentials` request──► consumer ──AssumeRole──► sealed reply
 *
 * Role chaining (a Lambda role assuming another role) caps a session at one hour, hence the
 * refresh through the authenticated channel.
 */
export interface SidecarCredentialSettings {
  /** The role every sidecar session is cut from (its own policy: the reply queue prefix + SendMessage). */
  readonly roleArn: string;
  /** ARN of the controller-requests FIFO queue. */
  readonly requestQueueArn: string;
  /**
   * Reply queue name prefix: a room's queue is `<prefix><roomId>`, a replacement server's
   * `<prefix><roomId>-e<n>` (core/protocol/queue-names.ts).
   */
  readonly replyQueuePrefix: string;
  /** @default 3600, the most role chaining allows */
  readonly durationS?: number;
}

/** `arn:…:sqs:<region>:<account>:<name>` of a queue in the same account and region as `sibling`. */
export function siblingQueueArn(sibling: string, name: string): string {
  const parts = sibling.split(':');
  if (parts.length !== 6 || parts[2] !== 'sqs') throw new Error(`Not an SQS queue ARN: ${sibling}`);
  return [...parts.slice(0, 5), name].join(':');
}

/**
 * The session policy of the sidecar of one room's server of `epoch`: the effective permissions
 * are the intersection of this and the role's own policy, so even a role granted on every reply
 * queue yields a session that reaches exactly one, named in full (a wildcard on the room id
 * would also match another room's or another epoch's). Only a server of epoch 1 can be a
 * standby server, so only its session reaches an assign queue.
 */
export function sidecarSessionPolicy(settings: SidecarCredentialSettings, roomId: string, epoch: number): string {
  const queueArn = (name: string) => siblingQueueArn(settings.requestQueueArn, name);
  const replyQueue = queueArn(replyQueueName(settings.replyQueuePrefix, roomId, epoch));
  const assignQueue = epoch === 1 ? queueArn(assignQueueName(settings.replyQueuePrefix, roomId)) : undefined;
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      // The assign queue only takes the standby server's one answer to `assign`; nothing reads it but the create.
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: [settings.requestQueueArn, ...(assignQueue ? [assignQueue] : [])],
      },
      {
        Effect: 'Allow',
        Action: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:DeleteQueue'],
        Resource: [replyQueue, `${replyQueue}.fifo`],
      },
      ...(assignQueue
        ? [
            {
              Effect: 'Allow',
              Action: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:DeleteQueue'],
              Resource: assignQueue,
            },
          ]
        : []),
    ],
  });
}

/** STS session names allow `[\w+=,.@-]`, at most 64 characters. */
export const sidecarSessionName = (roomId: string): string =>
  `room-${roomId.replace(/[^\w+=,.@-]/g, '-')}`.slice(0, 64);

/** Issues the scoped credentials of the sidecar of a room's server of `epoch` (at spawn, and on each refresh). */
export function stsSidecarCredentials(
  sts: STSClient,
  settings: SidecarCredentialSettings,
): (roomId: string, epoch: number) => Promise<SidecarCredentials> {
  return async (roomId, epoch) => {
    let response;
    try {
      response = await sts.send(
        new AssumeRoleCommand({
          RoleArn: settings.roleArn,
          RoleSessionName: sidecarSessionName(roomId),
          Policy: sidecarSessionPolicy(settings, roomId, epoch),
          DurationSeconds: settings.durationS ?? 3600,
        }),
      );
    } catch (error) {
      throw new SpawnFailedError('The sidecar credentials could not be issued.', { cause: error });
    }
    const c = response.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) {
      throw new SpawnFailedError('STS returned incomplete sidecar credentials.');
    }
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration.toISOString(),
    };
  };
}
