import { clusterOfTask } from './ecs-fleet-listing';
import { DescribeNetworkInterfacesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { DescribeTasksCommand, type ECSClient, type Task } from '@aws-sdk/client-ecs';
import { chunks } from '../infra/chunks';
import { classifyDependencyError } from '../infra/dependency-errors';
import { ServerAddressThrottledError } from './errors';
import type { ServerLocator } from './server-address';

/** DescribeTasks takes at most 100 tasks; the interface filter is given no more either. */
const batchLimit = 100;
/** How long the first lookup of a batch waits for the lookups arriving with it. */
const coalesceMs = 20;

/** The task's ENI id, from its `ElasticNetworkInterface` attachment. */
function interfaceOf(task: Task): string | undefined {
  return task.attachments
    ?.filter((attachment) => attachment.type === 'ElasticNetworkInterface')
    .flatMap((attachment) => attachment.details ?? [])
    .find((detail) => detail.name === 'networkInterfaceId')?.value;
}

/**
 * The public IPv4 of each task that has one: DescribeTasks per cluster (the one in the task's
 * ARN, 100 tasks a call) → each task's ENI id → DescribeNetworkInterfaces for all of them.
 * The interfaces are matched by a `network-interface-id` filter rather than listed by id: a
 * listed id that no longer exists (its task stopped) fails the whole call, a filter just does
 * not match it. Tasks without an ENI or a public IP yet are absent from the answer.
 */
async function publicAddresses(
  ecs: ECSClient,
  ec2: EC2Client,
  taskArns: readonly string[],
  defaultCluster: string,
): Promise<Map<string, string>> {
  const byCluster = new Map<string, string[]>();
  for (const arn of new Set(taskArns)) {
    const cluster = clusterOfTask(arn, defaultCluster);
    byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), arn]);
  }
  const interfaceOfTask = new Map<string, string>();
  const describe = async (cluster: string, tasks: string[]) => {
    const answer = await ecs.send(new DescribeTasksCommand({ cluster, tasks }));
    for (const task of answer.tasks ?? []) {
      const eni = interfaceOf(task);
      if (task.taskArn && eni) interfaceOfTask.set(task.taskArn, eni);
    }
  };
  await Promise.all(
    [...byCluster].flatMap(([cluster, arns]) => chunks(arns, batchLimit).map((c) => describe(cluster, c))),
  );
  const ipOf = new Map<string, string>();
  const readInterfaces = async (ids: string[]) => {
    let nextToken: string | undefined;
    do {
      const page = await ec2.send(
        new DescribeNetworkInterfacesCommand({
          Filters: [{ Name: 'network-interface-id', Values: ids }],
          MaxResults: 1000,
          NextToken: nextToken,
        }),
      );
      for (const eni of page.NetworkInterfaces ?? []) {
        const ip = eni.Association?.PublicIp;
        if (eni.NetworkInterfaceId && ip) ipOf.set(eni.NetworkInterfaceId, ip);
      }
      nextToken = page.NextToken;
    } while (nextToken);
  };
  await Promise.all(chunks([...new Set(interfaceOfTask.values())], batchLimit).map(readInterfaces));
  const addresses = new Map<string, string>();
  for (const [task, eni] of interfaceOfTask) {
    const ip = ipOf.get(eni);
    if (ip) addresses.set(task, ip);
  }
  return addresses;
}

interface Lookup {
  readonly roomId: string;
  readonly taskArn: string;
  resolve(address: string | undefined): void;
  reject(error: unknown): void;
}

/**
 * Where players reach an ECS task, for `inited`: its ENI's public IPv4. Tasks run in public
 * subnets with `assignPublicIp: ENABLED` (cdk/lib/constructs/game-server-fleet.ts); the IP is
 * attached with the ENI while the task provisions, so by `inited` (the game is running) it is
 * there. Undefined while the task or its address is not known yet; never the private IP, which
 * no player can reach.
 *
 * Why the lookups stay within the EC2 and ECS read buckets (EC2 refills its
 * DescribeNetworkInterfaces bucket at about 20 a second, account-wide): a room's task calls
 * `inited` once, so lookups follow the rate tasks start at, which RunTask itself bounds; the
 * lookups one process receives together (the groups of one consumer batch) are merged into one
 * DescribeTasks per cluster and one DescribeNetworkInterfaces, so a burst of starts costs a few
 * calls; and a throttled call is not retried here but fails every lookup of its batch with
 * `ServerAddressThrottledError`, which the consumer hands back to the queue for a few seconds.
 * Nothing is kept between batches: every lookup reads ECS and EC2 afresh.
 */
export class EcsTaskAddresses {
  private pending: Lookup[] = [];
  private scheduled = false;

  constructor(
    private readonly ecs: ECSClient,
    private readonly ec2: EC2Client,
    private readonly cluster: string,
  ) {}

  readonly locate: ServerLocator = (room) => {
    const taskArn = room.placement?.taskId;
    // Not placed yet (inited before RunTask's answer was recorded): the retried inited finds it.
    if (!taskArn) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.pending.push({ roomId: room.roomId, taskArn, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setTimeout(() => void this.flush(), coalesceMs);
    });
  };

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    try {
      const addresses = await publicAddresses(
        this.ecs,
        this.ec2,
        batch.map((lookup) => lookup.taskArn),
        this.cluster,
      );
      for (const lookup of batch) lookup.resolve(addresses.get(lookup.taskArn));
    } catch (error) {
      const throttled = classifyDependencyError(error)?.kind === 'throttled';
      for (const lookup of batch)
        lookup.reject(throttled ? new ServerAddressThrottledError(lookup.roomId, { cause: error }) : error);
    }
  }
}
