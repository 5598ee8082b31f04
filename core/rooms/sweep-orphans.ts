import type { ReplyQueues } from '../gameservers/reply-queues';
import type { ServerSlots } from '../gameservers/server-slot-store';
import type { Spawner } from '../gameservers/spawner';
import { isLive } from './model';
import type { RoomStore } from './room-store';

/**
 * Whether something left by a room (a task, a reply queue, a server slot) is an orphan at
 * `now`: its room is not among the live ones, and it is older than the grace. Pure. The grace
 * covers a room being created right now: its slot, task and queue exist before the sweeper's
 * (eventually consistent) index shows the room. Something of unknown age is never an orphan;
 * something of unknown room is one once it is old enough (no room can ever claim it).
 */
export function isOrphan(
  thing: { readonly roomId?: string; readonly since?: Date },
  live: ReadonlySet<string>,
  now: Date,
  graceS: number,
): boolean {
  if (thing.roomId !== undefined && live.has(thing.roomId)) return false;
  if (!thing.since) return false;
  return now.getTime() - thing.since.getTime() >= graceS * 1000;
}

export interface OrphanSweepDependencies {
  readonly spawner: Pick<Spawner, 'stop' | 'listServers'>;
  /** A strong read of each candidate's room: the index can lag a room that is in fact live. */
  readonly rooms: Pick<RoomStore, 'find'>;
  readonly slots?: Pick<ServerSlots, 'leases' | 'release'>;
  readonly queues?: ReplyQueues;
  readonly now: () => Date;
}

export interface OrphanSweepResult {
  /** Tasks (ECS) or sidecar processes (local) stopped because their room is not live. */
  readonly stoppedTasks: string[];
  /** Rooms whose server slot was given back by this pass (their end did not release it). */
  readonly releasedSlots: string[];
  readonly deletedQueues: string[];
}

/**
 * The cost-bound backstop (docs/cost-bounds.md), after the room sweep: whatever still runs or
 * is held for a room that is not live is ended. Each candidate's room is read again before
 * anything is stopped, so a lagging index never ends a live room's server.
 */
export async function sweepOrphans(
  live: ReadonlySet<string>,
  deps: OrphanSweepDependencies,
  policy: { readonly graceS: number },
): Promise<OrphanSweepResult> {
  const now = deps.now();
  const known = new Map<string, boolean>();
  const roomIsLive = async (roomId: string | undefined): Promise<boolean> => {
    if (roomId === undefined) return false;
    if (live.has(roomId)) return true;
    let answer = known.get(roomId);
    if (answer === undefined) {
      const room = await deps.rooms.find(roomId);
      answer = room !== undefined && isLive(room.state);
      known.set(roomId, answer);
    }
    return answer;
  };

  const stoppedTasks: string[] = [];
  for (const server of (await deps.spawner.listServers?.()) ?? []) {
    if (!isOrphan({ roomId: server.roomId, since: server.startedAt }, live, now, policy.graceS)) continue;
    if (await roomIsLive(server.roomId)) continue;
    await deps.spawner.stop(server.taskId, 'orphan: room not live');
    stoppedTasks.push(server.taskId);
  }

  const releasedSlots: string[] = [];
  for (const lease of (await deps.slots?.leases()) ?? []) {
    const since = new Date(lease.acquiredAt);
    if (!isOrphan({ roomId: lease.roomId, since }, live, now, policy.graceS)) continue;
    if (await roomIsLive(lease.roomId)) continue;
    if (await deps.slots?.release(lease.roomId)) releasedSlots.push(lease.roomId);
  }

  const deletedQueues: string[] = [];
  for (const queue of (await deps.queues?.list()) ?? []) {
    if (!isOrphan({ roomId: queue.roomId, since: queue.createdAt }, live, now, policy.graceS)) continue;
    if (await roomIsLive(queue.roomId)) continue;
    await deps.queues?.delete(queue.url);
    deletedQueues.push(queue.url);
  }
  return { stoppedTasks, releasedSlots, deletedQueues };
}
