import type { Spawner } from '../gameservers/spawner';
import { countSpawnFailure } from '../infra/metrics';
import type { QueueBacklog } from '../infra/queue-backlog';
import type { FailureReason } from '../protocol/controller-messages';
import type { SessionStore } from '../sessions/store';
import { judgeHeartbeats, type HeartbeatEvidencePolicy, type HeartbeatVerdict } from './heartbeat-evidence';
import { heartbeatSilent } from './liveness';
import type { LiveRoomIndex } from './live-room-store';
import type { Room } from './model';
import type { RoomStore } from './store';
import type { SweeperStateStore } from './sweeper-state-store';

export interface SweepPolicy extends HeartbeatEvidencePolicy {
  /** Grace past the spawn deadline, for the sidecar to report it first. */
  readonly spawnGraceS: number;
}

/**
 * Why a live room must be failed now, or undefined if it is fine. Pure. Silence counts only
 * when the verdict says the heartbeat pipeline is current, and is judged as of that verdict.
 */
export function overdue(
  room: Room,
  now: Date,
  policy: Pick<SweepPolicy, 'heartbeatTimeoutS' | 'spawnGraceS'>,
  heartbeats: Pick<HeartbeatVerdict, 'judge'> & { asOf?: Date },
): FailureReason | undefined {
  if (room.state === 'spawning' && now.getTime() > Date.parse(room.spawnDeadline) + policy.spawnGraceS * 1000)
    return 'spawn-timeout';
  if (heartbeats.judge && heartbeatSilent(room, heartbeats.asOf ?? now, policy.heartbeatTimeoutS)) {
    return 'heartbeat-lost';
  }
  return undefined;
}

export interface SweepDependencies {
  readonly members: Pick<SessionStore, 'reclaimExpired'>;
  /** Where the live rooms are found: an index, never a scan of the table. */
  readonly live: LiveRoomIndex;
  readonly rooms: Pick<RoomStore, 'markFailed'>;
  readonly spawner: Spawner;
  readonly memory: Pick<SweeperStateStore, 'read' | 'write'>;
  /** Messages pending in the controller-requests queue (heartbeats travel there). */
  readonly backlog: QueueBacklog;
  readonly now: () => Date;
}

export interface SweepResult {
  readonly failed: string[];
  readonly freedSlots: number;
  /** Whether silence was judged this time, or why not. */
  readonly heartbeats: 'judged' | Exclude<HeartbeatVerdict, { judge: true }>['why'];
  readonly backlog?: number;
}

/**
 * Fails live rooms whose server stopped reporting (sidecar or task died) or never came up,
 * and stops their tasks; frees the slots of expired reservations in the others. Reads and
 * joins judge time lazily anyway; this only makes the cleanup prompt. One pass over the live
 * rooms, found through the sweeper's index (core/rooms/live-room-store.ts): its cost follows
 * the live rooms, not everything the table ever stored.
 *
 *   read memory ─► t = now ─► read queue backlog ─► read live rooms ─► verdict ─► fail ─► remember t
 *
 * A stall anywhere before `t` shows as a late sweep; one after `t` cannot make a room look
 * older than it was at `t`.
 */
export async function sweepRooms(deps: SweepDependencies, policy: SweepPolicy): Promise<SweepResult> {
  const memory = await deps.memory.read();
  const observedAt = deps.now();
  const backlog = await deps.backlog();
  const rooms = await deps.live.liveRooms();
  const verdict = judgeHeartbeats(observedAt, { memory, backlog, liveRooms: rooms.length }, policy);
  const failed: string[] = [];
  let freedSlots = 0;
  for (const { room, doc } of rooms) {
    const reason = overdue(room, observedAt, policy, verdict);
    if (!reason) {
      // Reads and joins already ignore expired members; this frees their slots for good (the
      // document was just read: one conditional write if anything expired). A document that
      // does not parse is left to the reads that will report it, not allowed to stop the sweep.
      if (room.players > 0 && doc)
        freedSlots += await deps.members.reclaimExpired(room.roomId, deps.now(), { room, doc });
      continue;
    }
    const change = await deps.rooms.markFailed(room.roomId, reason, deps.now());
    if (!change.applied) continue;
    if (reason === 'spawn-timeout') countSpawnFailure(reason, observedAt);
    failed.push(room.roomId);
    if (room.placement) await deps.spawner.stop(room.placement.taskId, reason);
  }
  // Written last: a sweep that dies half way leaves the next one "late", hence careful.
  await deps.memory.write(verdict.memory);
  return {
    failed,
    freedSlots,
    heartbeats: verdict.judge ? 'judged' : verdict.why,
    ...(backlog === undefined ? {} : { backlog }),
  };
}
