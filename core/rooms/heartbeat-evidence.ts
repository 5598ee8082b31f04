/**
 * When the sweeper may read a stale `lastHeartbeatAt` as evidence that a room's server died.
 *
 * `lastHeartbeatAt` is when the platform APPLIED the room's last heartbeat, not when the
 * sidecar sent it. While the platform itself stalls (DynamoDB, the consumer, the whole
 * process), heartbeats of healthy rooms wait in the controller-requests queue and every
 * room looks silent. So before failing any room for silence the sweeper establishes that
 * the heartbeat pipeline is current:
 *
 *   previous sweep ──────── this sweep (t) ─────────────────────────────────────────────
 *        │  gap > interval + tolerance? ── yes ─► the platform stalled: grace of one timeout
 *        │  queue unreadable?           ── yes ─► cannot tell: grace of one timeout
 *        │  still in a grace period?    ── yes ─► judge nothing
 *        │  backlog > allowance?        ── yes ─► heartbeats are pending: judge nothing
 *        └─ else: a room silent for a whole timeout before t is dead (evidence about that room)
 *
 * Why a backlog within the allowance is enough: a healthy room looks silent only when all
 * the heartbeats it sent over one timeout are unapplied, i.e. at least timeout/interval - 1
 * of them (4 with the defaults) are in the queue. Judging at `t`, the instant just before
 * the queue was read, keeps the reasoning sound however long the room scan takes after it.
 */

export interface SweeperMemory {
  /** When the previous sweep observed the pipeline. */
  readonly lastSweepAt?: string;
  /** No room is failed for silence before this instant. */
  readonly graceUntil?: string;
}

export interface HeartbeatEvidencePolicy {
  readonly heartbeatTimeoutS: number;
  readonly heartbeatIntervalS: number;
  /** How often the sweeper is scheduled. */
  readonly sweepIntervalS: number;
  /** How much later than scheduled a sweep may run before it counts as a platform stall. */
  readonly lateToleranceS: number;
}

export interface HeartbeatObservations {
  /** What the previous sweep recorded. */
  readonly memory: SweeperMemory;
  /**
   * Messages in the controller-requests queue (waiting + in flight + delayed), read just
   * after `now`; undefined when the queue could not be read.
   */
  readonly backlog: number | undefined;
  /** Live rooms in this sweep. */
  readonly liveRooms: number;
}

export type HeartbeatVerdict =
  | { readonly judge: true; readonly asOf: Date; readonly memory: SweeperMemory }
  | {
      readonly judge: false;
      readonly why: 'sweep-late' | 'queue-unreadable' | 'grace' | 'backlog';
      readonly memory: SweeperMemory;
    };

/**
 * The largest backlog that still counts as current: fewer messages than one silent healthy
 * room would leave pending, or, with many rooms, less than one pending message per live
 * room (a stall as long as the timeout leaves about timeout/interval per room).
 */
export function backlogAllowance(policy: HeartbeatEvidencePolicy, liveRooms: number): number {
  const oneSilentRoom = Math.floor(policy.heartbeatTimeoutS / policy.heartbeatIntervalS) - 1;
  return Math.max(0, oneSilentRoom - 1, liveRooms);
}

/**
 * Decides whether this sweep may fail rooms for heartbeat loss, and what to remember for the
 * next one. Pure: `now` is the instant just before the queue was read.
 *
 * @example
 * judgeHeartbeats(now, { memory: { lastSweepAt: fiveSecondsAgo }, backlog: 0, liveRooms: 3 }, policy)
 * // → { judge: true, asOf: now, memory: { lastSweepAt: now } }
 */
export function judgeHeartbeats(
  now: Date,
  observations: HeartbeatObservations,
  policy: HeartbeatEvidencePolicy,
): HeartbeatVerdict {
  const t = now.getTime();
  const { memory, backlog } = observations;
  const previous = memory.lastSweepAt === undefined ? undefined : Date.parse(memory.lastSweepAt);
  // No previous sweep (first run, or the last one never finished): as good as late.
  const late = previous === undefined || t - previous > (policy.sweepIntervalS + policy.lateToleranceS) * 1000;
  const unreadable = backlog === undefined;
  let graceUntil = memory.graceUntil === undefined ? undefined : Date.parse(memory.graceUntil);
  if (late || unreadable) {
    // Heartbeats sent during the stall may not even be in the queue yet: give every room one
    // whole timeout of a working pipeline to be heard from again.
    graceUntil = Math.max(graceUntil ?? 0, t + policy.heartbeatTimeoutS * 1000);
  }
  const next: SweeperMemory = {
    lastSweepAt: now.toISOString(),
    ...(graceUntil !== undefined && graceUntil > t ? { graceUntil: new Date(graceUntil).toISOString() } : {}),
  };
  if (late) return { judge: false, why: 'sweep-late', memory: next };
  if (unreadable) return { judge: false, why: 'queue-unreadable', memory: next };
  if (graceUntil !== undefined && t < graceUntil) return { judge: false, why: 'grace', memory: next };
  if (backlog > backlogAllowance(policy, observations.liveRooms)) return { judge: false, why: 'backlog', memory: next };
  return { judge: true, asOf: now, memory: next };
}
