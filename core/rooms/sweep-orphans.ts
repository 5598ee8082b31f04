import type { ReplyQueue, ReplyQueues } from '../gameservers/reply-queues';
import type { ServerLease, ServerSlots } from '../gameservers/server-slot-store';
import type { RunningServer, Spawner } from '../gameservers/spawner';
import type { LiveRoomIndex } from './live-room-store';

/**
 * The rooms the room sweep saw live, each with the epoch of its current game server as read
 * (core/rooms/replacement.ts `serverEpochOf`: 1 for a room never given a replacement).
 */
export type LiveRooms = ReadonlyMap<string, number>;

/**
 * Whether something left by a room (a task, a reply queue, a server slot) is an orphan at
 * `now`: its room is not among the live ones, and it is older than the grace. Pure. The grace
 * covers a room being created right now: its slot, task and queue exist before the sweeper's
 * (eventually consistent) index shows the room. Something of unknown age is never an orphan;
 * something of unknown room is one once it is old enough (no room can ever claim it).
 */
export function isOrphan(
  thing: { readonly roomId?: string; readonly since?: Date },
  live: { has(roomId: string): boolean },
  now: Date,
  graceS: number,
): boolean {
  if (thing.roomId !== undefined && live.has(thing.roomId)) return false;
  if (!thing.since) return false;
  return now.getTime() - thing.since.getTime() >= graceS * 1000;
}

export interface OrphanSweepDependencies {
  readonly spawner: Pick<Spawner, 'stop' | 'listServers'>;
  /**
   * A strong read of the candidates' rooms, batched: the index can lag a room that is in fact
   * live. A reader only: room items keep their one writer (the room store).
   */
  readonly rooms: Pick<LiveRoomIndex, 'liveAmong'>;
  readonly slots?: Pick<ServerSlots, 'leases' | 'release'>;
  readonly queues?: ReplyQueues;
  readonly now: () => Date;
}

export interface OrphanSweepPolicy {
  readonly graceS: number;
  /**
   * No new call is started at or after this instant (the function's deadline less a margin):
   * what is left is found again by the next run, so a pass cut short loses nothing.
   */
  readonly stopBy?: Date;
}

export interface OrphanSweepResult {
  /** Tasks (ECS) or sidecar processes (local) stopped because their room is not live. */
  readonly stoppedTasks: string[];
  /** Rooms whose server slot was given back by this pass (their end did not release it). */
  readonly releasedSlots: string[];
  readonly deletedQueues: string[];
  /** Whether the pass stopped at `stopBy` with work left for the next run. */
  readonly cutShort: boolean;
}

/** What the pass found to judge, before any room is read. */
interface Candidates {
  readonly servers: RunningServer[];
  readonly leases: ServerLease[];
  readonly queues: ReplyQueue[];
  /** Queues of a live room's server of an older epoch than its current one. */
  readonly superseded: ReplyQueue[];
}

/**
 * The cost-bound backstop (docs/cost-bounds.md), after the room sweep: whatever still runs or
 * is held for a room that is not live is ended, and so is a live room's queue of a server it
 * has replaced. The cheap facts come first: a queue's room and epoch are in its name, a task's
 * and a lease's age in their listing, and `live` settles most of them.
 * The rest get one strong read of their rooms (batched) before anything is stopped, so a
 * lagging index never ends a live room's server, and only queues whose room has ended are
 * asked their age (one GetQueueAttributes each): the pass costs calls per orphan, not per
 * live room.
 */
export async function sweepOrphans(
  live: LiveRooms,
  deps: OrphanSweepDependencies,
  policy: OrphanSweepPolicy,
): Promise<OrphanSweepResult> {
  const now = deps.now();
  const timeLeft = () => policy.stopBy === undefined || deps.now().getTime() < policy.stopBy.getTime();
  const result = { stoppedTasks: [] as string[], releasedSlots: [] as string[], deletedQueues: [] as string[] };
  const found = await candidates(live, deps, now, policy.graceS, timeLeft);
  if (!found) return { ...result, cutShort: true };
  const asked = [...found.servers, ...found.leases, ...found.queues].flatMap((c) => (c.roomId ? [c.roomId] : []));
  if (asked.length > 0 && !timeLeft()) return { ...result, cutShort: true };
  const stillLive = asked.length > 0 ? await deps.rooms.liveAmong(asked) : new Set<string>();
  const ended = (roomId: string | undefined) => roomId === undefined || !stillLive.has(roomId);

  for (const server of found.servers.filter((s) => ended(s.roomId))) {
    if (!timeLeft()) return { ...result, cutShort: true };
    await deps.spawner.stop(server.taskId, 'orphan: room not live');
    result.stoppedTasks.push(server.taskId);
  }
  for (const lease of found.leases.filter((l) => ended(l.roomId))) {
    if (!timeLeft()) return { ...result, cutShort: true };
    if (await deps.slots?.release(lease.roomId)) result.releasedSlots.push(lease.roomId);
  }
  const queues = deps.queues;
  // No age to wait for: the room moved past that epoch, so no server of it will start again
  // (one still running is being stopped, and the platform refuses its messages).
  for (const queue of queues ? found.superseded : []) {
    if (!timeLeft()) return { ...result, cutShort: true };
    await queues?.delete(queue.url);
    result.deletedQueues.push(queue.url);
  }
  for (const queue of queues ? found.queues.filter((q) => ended(q.roomId)) : []) {
    if (!timeLeft()) return { ...result, cutShort: true };
    const since = await queues?.createdAt(queue.url);
    if (!isOrphan({ roomId: queue.roomId, since }, live, now, policy.graceS)) continue;
    if (!timeLeft()) return { ...result, cutShort: true };
    await queues?.delete(queue.url);
    result.deletedQueues.push(queue.url);
  }
  return { ...result, cutShort: false };
}

/**
 * Tasks and leases old enough whose room the index does not show live, queues whose room it
 * does not show live (their age is asked later, only if their room has ended), and queues of a
 * live room's older epochs. Undefined when the time ran out between the listings.
 */
async function candidates(
  live: LiveRooms,
  deps: OrphanSweepDependencies,
  now: Date,
  graceS: number,
  timeLeft: () => boolean,
): Promise<Candidates | undefined> {
  const servers = (await deps.spawner.listServers?.()) ?? [];
  if (!timeLeft()) return undefined;
  const leases = (await deps.slots?.leases()) ?? [];
  if (!timeLeft()) return undefined;
  const queues = (await deps.queues?.list()) ?? [];
  return {
    servers: servers.filter((s) => isOrphan({ roomId: s.roomId, since: s.startedAt }, live, now, graceS)),
    leases: leases.filter((l) => isOrphan({ roomId: l.roomId, since: new Date(l.acquiredAt) }, live, now, graceS)),
    queues: queues.filter((q) => !live.has(q.roomId)),
    superseded: queues.filter((q) => q.epoch < (live.get(q.roomId) ?? 0)),
  };
}
