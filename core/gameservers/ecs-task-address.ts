import { clusterOfTask } from './ecs-fleet-listing';
import { DescribeNetworkInterfacesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { DescribeTasksCommand, type ECSClient } from '@aws-sdk/client-ecs';
import type { ServerLocator } from './server-address';

/**
 * `ec2:DescribeNetworkInterfaces` for one interface → its public IPv4 (`Association.PublicIp`),
 * or undefined while it has none, or once the interface is gone (the task stopped).
 */
export function ec2PublicIpLookup(ec2: EC2Client): (networkInterfaceId: string) => Promise<string | undefined> {
  return async (networkInterfaceId) => {
    try {
      const { NetworkInterfaces } = await ec2.send(
        new DescribeNetworkInterfacesCommand({ NetworkInterfaceIds: [networkInterfaceId] }),
      );
      return NetworkInterfaces?.[0]?.Association?.PublicIp;
    } catch (error) {
      if ((error as { name?: string }).name === 'InvalidNetworkInterfaceID.NotFound') return undefined;
      throw error;
    }
  };
}

/**
 * Where players reach an ECS task: DescribeTasks (in the task's own cluster) → the task's ENI id →
 * DescribeNetworkInterfaces → its public IPv4. Tasks run in public subnets with
 * `assignPublicIp: ENABLED` (cdk/lib/constructs/game-server-fleet.ts); the IP is attached with
 * the ENI while the task provisions, so by `inited` (the game is running) it is there.
 * Undefined while the task or its address is not known yet; never the private IP, which no
 * player can reach.
 */
export function ecsTaskLocator(
  ecs: ECSClient,
  cluster: string,
  publicIpOf: (networkInterfaceId: string) => Promise<string | undefined>,
): ServerLocator {
  return async (room) => {
    const taskArn = room.placement?.taskId;
    // Not placed yet (inited before RunTask's answer was recorded): the retried inited finds it.
    if (!taskArn) return undefined;
    const { tasks } = await ecs.send(
      new DescribeTasksCommand({ cluster: clusterOfTask(taskArn, cluster), tasks: [taskArn] }),
    );
    const eni = tasks?.[0]?.attachments
      ?.filter((attachment) => attachment.type === 'ElasticNetworkInterface')
      .flatMap((attachment) => attachment.details ?? [])
      .find((detail) => detail.name === 'networkInterfaceId')?.value;
    return eni ? publicIpOf(eni) : undefined;
  };
}
