import { DescribeContainerInstancesCommand, ListContainerInstancesCommand, type ECSClient } from '@aws-sdk/client-ecs';
import { listRoomTasks } from '../gameservers/ecs-fleet-listing';
import type { HostHeartbeat } from './fleet-model';
import type { Fleet } from './fleet-store';
import { chunks } from '../infra/chunks';

/** DescribeContainerInstances takes at most 100 instances. */
const describeBatch = 100;

interface ClusterLoad {
  readonly cpu: number;
  readonly memory: number;
  readonly servers: number;
}

/**
 * A cluster's load: its room tasks, and the CPU and memory its container instances have
 * reserved (1 − remaining ÷ registered). A Fargate-only cluster has no instances: AWS owns
 * that capacity, so CPU and memory read 0 and the host's limit is its server count.
 */
async function clusterLoad(ecs: ECSClient, cluster: string): Promise<ClusterLoad> {
  const servers = (await listRoomTasks(ecs, cluster)).length;
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await ecs.send(new ListContainerInstancesCommand({ cluster, maxResults: 100, nextToken }));
    arns.push(...(page.containerInstanceArns ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const totals = { cpu: { registered: 0, remaining: 0 }, memory: { registered: 0, remaining: 0 } };
  for (const batch of chunks(arns, describeBatch)) {
    const { containerInstances } = await ecs.send(
      new DescribeContainerInstancesCommand({ cluster, containerInstances: batch }),
    );
    for (const instance of containerInstances ?? []) {
      for (const kind of ['cpu', 'memory'] as const) {
        const name = kind === 'cpu' ? 'CPU' : 'MEMORY';
        totals[kind].registered += instance.registeredResources?.find((r) => r.name === name)?.integerValue ?? 0;
        totals[kind].remaining += instance.remainingResources?.find((r) => r.name === name)?.integerValue ?? 0;
      }
    }
  }
  const used = (t: { registered: number; remaining: number }) =>
    t.registered > 0 ? Math.min(1, Math.max(0, 1 - t.remaining / t.registered)) : 0;
  return { servers, cpu: used(totals.cpu), memory: used(totals.memory) };
}

/**
 * The heartbeats of the fleet's ECS hosts, which have no agent of their own: the sweeper
 * measures each host's cluster (once per cluster) every run. Hosts sharing a cluster report
 * the cluster's figures; their own `placed` counters still keep each to its `maxServers`.
 */
export async function ecsHostHeartbeats(
  ecs: ECSClient,
  fleet: Fleet,
): Promise<{ hostId: string; beat: HostHeartbeat }[]> {
  const hosts = fleet.hosts.filter((h) => h.ecs);
  const clusters = [...new Set(hosts.map((h) => h.ecs?.cluster ?? ''))];
  const loads = new Map(
    await Promise.all(clusters.map(async (cluster) => [cluster, await clusterLoad(ecs, cluster)] as const)),
  );
  return hosts.flatMap((host) => {
    const load = loads.get(host.ecs?.cluster ?? '');
    return load ? [{ hostId: host.hostId, beat: load }] : [];
  });
}
