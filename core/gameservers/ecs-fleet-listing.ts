import { DescribeTasksCommand, ListTasksCommand, type ECSClient } from '@aws-sdk/client-ecs';
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

/** DescribeTasks takes at most 100 tasks. */
const describeBatch = 100;

/**
 * The cluster's room tasks that are running or about to (`desiredStatus` RUNNING), with the
 * room each was started for (its `roomkeeper:room` tag). Two calls per 100 tasks.
 */
export async function listRoomTasks(ecs: ECSClient, cluster: string): Promise<RunningServer[]> {
  const arns: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await ecs.send(
      new ListTasksCommand({
        cluster,
        startedBy: roomTaskStartedBy,
        desiredStatus: 'RUNNING',
        maxResults: 100,
        nextToken,
      }),
    );
    arns.push(...(page.taskArns ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  const servers: RunningServer[] = [];
  for (let i = 0; i < arns.length; i += describeBatch) {
    const { tasks } = await ecs.send(
      new DescribeTasksCommand({ cluster, tasks: arns.slice(i, i + describeBatch), include: ['TAGS'] }),
    );
    for (const task of tasks ?? []) {
      if (!task.taskArn) continue;
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
