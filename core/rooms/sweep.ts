import type { ServerSlots } from '../gameservers/server-slot-store';
import type { Spawner } from '../gameservers/spawner';
import { countSpawnFailure } from '../infra/metrics';
import { costBoundReached, type CostBoundReason } from './cost-bounds';
import type { QueueBacklog } from '../infra/queue-backlog';
import type { FailureReason } from '../protocol/controller-messages';
import type { RoomStore, SessionRead } from './room-store';
import { endIfOver } from './session-end';
import { hostLostWrite } from './host';
import { serverEpochOf } from './replacement';
import { judgeHeartbeats, type HeartbeatEvidencePolicy, type HeartbeatVerdict } from './heartbeat-evidence';
import { heartbeatSilent } from './liveness';
import type { LiveRoomIndex } from './live-room-store';
import type { Room, RoomBounds } from './model';
import type { SweeperStateStore } from './sweeper-state-store';
import type { DeathOutcome, ServerDeath } from './server-replacement';

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
  readonly members: Pick<RoomStore, 'reclaimExpired' | 'read'>;
  /** Where the live rooms are found: an index, never a scan of the table. */
  readonly live: LiveRoomIndex;
  readonly rooms: Pick<RoomStore, 'markFailed' | 'markClosed' | 'endSession' | 'writeSession'>;
  /**
   * Cost bounds (docs/cost-bounds.md): rooms without bounds of their own get `defaults`; a
   * room the sweep ends gives back its running-server slot. Absent: no room is ended for cost.
   */
  readonly costs?: { readonly defaults: RoomBounds; readonly slots?: Pick<ServerSlots, 'release'> };
  readonly spawner: Spawner;
  /**
   * A silent server's room: a `migrateHost` room gets a replacement, any other fails
   * (core/rooms/server-replacement.ts). Absent: every silent room fails.
   */
  readonly replaceServer?: (roomId: string, death: ServerDeath) => Promise<DeathOutcome>;
  /** Its memory, and (when given) what the consumers report about the heartbeat pipeline. */
  readonly memory: Pick<SweeperStateStore, 'read' | 'write'> & Partial<Pick<SweeperStateStore, 'pipeline'>>;
  /** Messages pending in the controller-requests queue (heartbeats travel there). */
  readonly backlog: QueueBacklog;
  readonly now: () => Date;
}

export interface SweepResult {
  readonly failed: string[];
  /** Rooms ended by a cost bound, or (`host-lost`) a session without `migrateHost` that lost its host. */
  readonly closed: { readonly roomId: string; readonly reason: CostBoundReason | 'host-lost' }[];
  /** Rooms still live after this pass (the orphan passes keep their tasks and queues). */
  readonly live: string[];
  /**
   * Rooms of `live` whose game server is a replacement: the epoch of that server as read
   * (`serverEpochOf`). The orphan pass deletes their queues of older epochs.
   */
  readonly serverEpochs: Readonly<Record<string, number>>;
  readonly freedSlots: number;
  /** Whether silence was judged this time, or why not. */
  readonly heartbeats: 'judged' | Exclude<HeartbeatVerdict, { judge: true }>['why'];
  readonly backlog?: number;
}

/**
 * A session empty past its `sessionEmptyMs` ends (core/rooms/session-end.ts decides): its item
 * goes, its server stops and gives back its slot. Reads only ever judge it over; this ends it
 * even if nobody writes to it again.
 */
async function endSessionIfOver(read: SessionRead, now: Date, deps: SweepDependencies): Promise<boolean> {
  const ended = await endIfOver(read, now, {
    sessions: deps.members,
    rooms: deps.rooms,
    now: deps.now,
    stopServer: (taskId) => deps.spawner.stop(taskId, 'session-empty'),
  });
  if (ended) await deps.costs?.slots?.release(read.room.roomId);
  return ended;
}

/**
 * A session without `migrateHost` whose member host is lost (silent past its timeout, or gone)
 * ends even if no member claims (core/rooms/host.ts `hostLostWrite` decides, its write holds it).
 */
async function endIfHostLost(read: SessionRead, deps: SweepDependencies): Promise<boolean> {
  const write = hostLostWrite(read, deps.now());
  return write !== undefined && (await deps.rooms.writeSession(read.room.roomId, write)).applied;
}

/**
 * A room overdue for `reason`: failed, its task stopped and its slot given back; or, a
 * `migrateHost` room whose server went silent, given a replacement server (`replaceServer`,
 * which stops the silent one and keeps the slot): it stays live.
 */
async function failOverdue(
  found: { readonly room: Room; readonly doc?: SessionRead['doc'] },
  reason: FailureReason,
  observedAt: Date,
  deps: SweepDependencies,
): Promise<'failed' | 'live'> {
  const { room, doc } = found;
  if (reason === 'heartbeat-lost' && deps.replaceServer) {
    // The silent server is the room's current one: its epoch, or the use case would take the
    // evidence for a report about a server already replaced and leave the room as it is.
    const death = await deps.replaceServer(room.roomId, {
      reason,
      epoch: serverEpochOf(room),
      ...(doc ? { read: { room, doc } } : {}),
    });
    if (death.kind !== 'failed') return 'live';
  } else {
    const change = await deps.rooms.markFailed(room.roomId, reason, deps.now());
    if (!change.applied) return 'live';
    if (reason === 'spawn-timeout') countSpawnFailure(reason, observedAt);
  }
  if (room.placement) await deps.spawner.stop(room.placement.taskId, reason);
  await deps.costs?.slots?.release(room.roomId);
  return 'failed';
}

/**
 * Fails live rooms whose server stopped reporting (sidecar or task died) or never came up,
 * and stops their tasks; closes rooms past a cost bound (empty for their grace, or past their
 * lifetime: core/rooms/cost-bounds.ts) and stops theirs; frees the slots of expired
 * reservations in the others. Reads and
 * joins judge time lazily anyway; this only makes the cleanup prompt. One pass over the live
 * rooms, found through the sweeper's index (core/rooms/live-room-store.ts): its cost follows
 * the live rooms, not everything the table ever stored.
 *
 *   read memory and pipeline reports ─► t = now ─► read queue backlog ─► read live rooms ─► verdict ─► fail ─► remember t
 *
 * A stall anywhere before `t` shows as a late sweep; one after `t` cannot make a room look
 * older than it was at `t`.
 */
export async function sweepRooms(deps: SweepDependencies, policy: SweepPolicy): Promise<SweepResult> {
  const memory = await deps.memory.read();
  // Read before `t`: a disruption reported after it is judged by the next sweep.
  const pipeline = await deps.memory.pipeline?.();
  const observedAt = deps.now();
  const backlog = await deps.backlog();
  const rooms = await deps.live.liveRooms();
  const verdict = judgeHeartbeats(
    observedAt,
    { memory, backlog, liveRooms: rooms.length, ...(pipeline ? { pipeline } : {}) },
    policy,
  );
  const failed: string[] = [];
  const closed: SweepResult['closed'][number][] = [];
  const live: string[] = [];
  let freedSlots = 0;
  for (const { room, doc } of rooms) {
    const reason = overdue(room, observedAt, policy, verdict);
    const bound = !reason && deps.costs ? costBoundReached(room, doc, observedAt, deps.costs.defaults) : undefined;
    if (bound) {
      // Empty: only if no join landed since the read that saw it empty (the change number).
      const change = await deps.rooms.markClosed(
        room.roomId,
        deps.now(),
        bound === 'empty' ? { changeNumber: room.changeNumber } : undefined,
      );
      if (!change.applied) {
        live.push(room.roomId);
        continue;
      }
      closed.push({ roomId: room.roomId, reason: bound });
      // Stopping the task is what tells the game: the sidecar's SIGTERM sends it the protocol's
      // `shutdown` notice with its grace, then ends it (docs/game-server-protocol.md).
      if (room.placement) await deps.spawner.stop(room.placement.taskId, `cost bound: ${bound}`);
      await deps.costs?.slots?.release(room.roomId);
      continue;
    }
    if (!reason && doc && (await endIfHostLost({ room, doc }, deps))) {
      closed.push({ roomId: room.roomId, reason: 'host-lost' });
      continue;
    }
    if (!reason && doc && (await endSessionIfOver({ room, doc }, observedAt, deps))) continue;
    if (!reason) {
      live.push(room.roomId);
      // Reads and joins already ignore expired members; this frees their slots for good (the
      // document was just read: one conditional write if anything expired). A document that
      // does not parse is left to the reads that will report it, not allowed to stop the sweep.
      if (room.players > 0 && doc)
        freedSlots += await deps.members.reclaimExpired(room.roomId, deps.now(), { room, doc });
      continue;
    }
    if ((await failOverdue({ room, ...(doc ? { doc } : {}) }, reason, observedAt, deps)) === 'failed')
      failed.push(room.roomId);
    else live.push(room.roomId);
  }
  // Written last: a sweep that dies half way leaves the next one "late", hence careful.
  await deps.memory.write(verdict.memory);
  const stillLive = new Set(live);
  return {
    failed,
    closed,
    live,
    serverEpochs: Object.fromEntries(
      rooms.flatMap(({ room }) =>
        stillLive.has(room.roomId) && serverEpochOf(room) > 1 ? [[room.roomId, serverEpochOf(room)]] : [],
      ),
    ),
    freedSlots,
    heartbeats: verdict.judge ? 'judged' : verdict.why,
    ...(backlog === undefined ? {} : { backlog }),
  };
}
