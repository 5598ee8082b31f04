import { DescribeTasksCommand, ListTasksCommand, type ECSClient, type Task } from '@aws-sdk/client-ecs';
import { chunks } from '../infra/chunks';
import type { RunningServer } from './spawner';

/** What every room task is started with (ecs-spawner.ts): `startedBy` and the room tag. */
const roomTaskStartedBy = 'roomkeeper';
const roomTagKey = 'roomkeeper:room';
/**
 * The cluster a task runs in, from its ARN (`arn:aws:ecs:<region>:<account>:task/<cluster>/<id>`):
 * tasks of hosts in other clusters are stopped and described there. An old-format ARN
 * (no cluster part) or a non-ARN id: `fallback`.
 */
export function clusterOfTask(taskArn: string, fallback: string): string {
  return /^arn:aws[a-z-]*:ecs:[^:]*:\d*:task\/([A-Za-z0-9_-]{1,255})\/[A-Za-z0-9]+$/.exec(taskArn)?.[1] ?? fallback;
}

/** A task ECS is stopping or has stopped: it holds no room's server any more. */
function isStoppedOrStopping(task: Pick<Task, 'desiredStatus' | 'lastStatus'>): boolean {
  return task.desiredStatus === 'STOPPED' || task.lastStatus === 'STOPPED';
}

/** DescribeTasks takes at most 100 tasks. */
const describeBatch = 100;

/**
 * The cluster's room tasks that are running or about to, with the room each was started for
 * (its `roomkeeper:room` tag). Two calls per 100 tasks.
 *
 * ListTasks gets `startedBy` and no other filter: the ECS API reference says that when
 * `startedBy` is given it must be the only filter, and ECS refuses the request otherwise. It
 * lists tasks ECS wants running, plus recently stopped ones for at least an hour; the stopped
 * and stopping ones are dropped here by DescribeTasks' `desiredStatus` and `lastStatus`.
 */
export async function listRoomTasks(ecs: ECSClient, cluster: string): Promise<RunningServer[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await ecs.send(
      new ListTasksCommand({
        cluster,
        startedBy: roomTaskStartedBy,
        maxResults: 100,
        nextToken,
      }),
    );
    arns.push(...(page.taskArns ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const servers: RunningServer[] = [];
  for (const batch of chunks(arns, describeBatch)) {
    const { tasks } = await ecs.send(new DescribeTasksCommand({ cluster, tasks: batch, include: ['TAGS'] }));
    for (const task of tasks ?? []) {
      if (!task.taskArn || isStoppedOrStopping(task)) continue;
      const roomId = task.tags?.find((tag) => tag.key === roomTagKey)?.value;
      servers.push({
        taskId: task.taskArn,
        ...(roomId ? { roomId } : {}),
        startedAt: task.createdAt ?? task.startedAt ?? new Date(0),
      });
    }
  }
  return servers;
}
