import { readdirSync, readFileSync } from 'node:fs';

/** One process of the platform's tree, as /proc shows it. */
export interface TreeProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly args: readonly string[];
  /** The room a controller sidecar serves (its ROOM_ID), if it is one. */
  readonly roomId?: string;
}

/** The parent pid from /proc/<pid>/stat text (the command may hold spaces and parentheses). */
export function parentOf(stat: string): number {
  const afterCommand = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(afterCommand[1]);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`. */
export function descendants(root: number): TreeProcess[] {
  const all: TreeProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (!stat || cmdline === undefined) continue;
    const environ = read(`/proc/${pid}/environ`) ?? '';
    const roomId = /(?:^|\0)ROOM_ID=([^\0]+)/.exec(environ)?.[1];
    all.push({ pid, ppid: parentOf(stat), args: cmdline.split('\0').filter(Boolean), ...(roomId ? { roomId } : {}) });
  }
  const byParent = new Map<number, TreeProcess[]>();
  for (const p of all) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const found: TreeProcess[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of byParent.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The controller sidecar of a room: the platform's child whose environment names the room. */
export function sidecarOf(tree: readonly TreeProcess[], roomId: string, platformPid: number): TreeProcess | undefined {
  return tree.find((p) => p.roomId === roomId && p.ppid === platformPid);
}

/** The game server of a room: the child of its sidecar. */
export function gameOf(tree: readonly TreeProcess[], sidecar: TreeProcess): TreeProcess | undefined {
  return tree.find((p) => p.ppid === sidecar.pid);
}

/** DynamoDB Local's JVM: its jar is `-jar`'s argument, or part of the class path of local/dynamodb-local-on-host.java. */
export function dynamoDbJvm(tree: readonly TreeProcess[]): TreeProcess | undefined {
  return tree.find((p) => p.args.some((a) => a.includes('DynamoDBLocal.jar')));
}
