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
 *        │  pipeline disrupted within
 *        │  the last timeout?           ── yes ─► judge nothing (heartbeats were dropped, not queued)
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
  /** The last sweep that found the pipeline current and judged silence. */
  readonly judgedAt?: string;
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
  /** What the consumers reported about the heartbeat pipeline (absent: nothing known). */
  readonly pipeline?: HeartbeatPipeline;
}

/**
 * What the controller-requests consumers report about the heartbeat pipeline, as they see
 * it (core/rooms/sweeper-state-store.ts keeps it beside the sweeper's memory):
 *
 * - `heardAt`: the latest instant a consumer applied a heartbeat sent moments before: the
 *   pipeline was current then.
 * - `disruptedAt`: the latest instant a consumer found it was not: a message it could not
 *   apply because a dependency failed (a failed heartbeat is dropped, so it is in no backlog
 *   either), or a heartbeat applied so late that its room looked silent meanwhile. Written
 *   once the consumer can write again, so it is known just after the disruption, not during.
 */
export interface HeartbeatPipeline {
  readonly heardAt?: string;
  readonly disruptedAt?: string;
  /** The sweeper's own grace period (after a late sweep or an unreadable queue). */
  readonly graceUntil?: string;
  /** The last sweep that found the pipeline current (it judged silence). */
  readonly judgedAt?: string;
}

export type HeartbeatVerdict =
  | { readonly judge: true; readonly asOf: Date; readonly memory: SweeperMemory }
  | {
      readonly judge: false;
      readonly why: 'sweep-late' | 'queue-unreadable' | 'grace' | 'disrupted' | 'backlog';
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
 * // → { judge: true, asOf: now, memory: { lastSweepAt: now, judgedAt: now } }
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
    ...(memory.judgedAt === undefined ? {} : { judgedAt: memory.judgedAt }),
  };
  if (late) return { judge: false, why: 'sweep-late', memory: next };
  if (unreadable) return { judge: false, why: 'queue-unreadable', memory: next };
  if (graceUntil !== undefined && t < graceUntil) return { judge: false, why: 'grace', memory: next };
  if (disruptedWithin(observations.pipeline, t, policy.heartbeatTimeoutS))
    return { judge: false, why: 'disrupted', memory: next };
  if (backlog > backlogAllowance(policy, observations.liveRooms)) return { judge: false, why: 'backlog', memory: next };
  return { judge: true, asOf: now, memory: { ...next, judgedAt: now.toISOString() } };
}

/** Whether a consumer reported the pipeline disrupted less than `timeoutS` before `t`. */
function disruptedWithin(pipeline: HeartbeatPipeline | undefined, t: number, timeoutS: number): boolean {
  const at = pipeline?.disruptedAt === undefined ? undefined : Date.parse(pipeline.disruptedAt);
  return at !== undefined && at > t - timeoutS * 1000;
}

/**
 * Whose silence a join found: a ready room not heard from for a whole timeout is either dead
 * (409 NOT_JOINABLE, final) or the platform did not hear it (503 UNAVAILABLE, retry).
 */
export type SilenceCause =
  | { readonly cause: 'room' }
  | {
      readonly cause: 'platform';
      readonly why: 'not-hearing' | 'disrupted' | 'grace';
      /** When to ask again: the end of the sweeper's grace, else one heartbeat interval. */
      readonly retryAfterS: number;
    };

/**
 * Decides whether a ready room's silence at `now` is its own. `lastHeartbeatAt` is when the
 * platform applied the room's last heartbeat. The silence is the room's only when the platform
 * was demonstrably hearing after the room's next two heartbeats were due (a consumer applied
 * a fresh heartbeat, or a sweep found the queue current: `heardAt`/`judgedAt` at least two
 * intervals after `lastHeartbeatAt`) and nothing disrupted the pipeline since the room was
 * last heard (no heartbeat of it can have been dropped or held back). Without that evidence
 * (a stall just ended; nothing at all is heard yet) the answer is "retry": the sweeper, which
 * fails a dead room, turns it into NOT_JOINABLE soon enough.
 *
 *   ─ room last heard ─ +2 intervals ─────────────────────────── now
 *          │ disruption reported after it? ──────────────────► platform (retry)
 *          │ the platform heard/judged after +2 intervals? no ─► platform (retry)
 *          └ else ───────────────────────────────────────────► the room's own silence
 *
 * @example
 * causeOfSilence(now, twelveSecondsAgo, { heardAt: oneSecondAgo }, policy) // → { cause: 'room' }
 * causeOfSilence(now, twelveSecondsAgo, { heardAt: oneSecondAgo, disruptedAt: threeSecondsAgo }, policy)
 * // → { cause: 'platform', why: 'disrupted', retryAfterS: 2 }
 */
export function causeOfSilence(
  now: Date,
  lastHeartbeatAt: string,
  pipeline: HeartbeatPipeline,
  policy: Pick<HeartbeatEvidencePolicy, 'heartbeatTimeoutS' | 'heartbeatIntervalS'>,
): SilenceCause {
  const t = now.getTime();
  const last = Date.parse(lastHeartbeatAt);
  const retryAfterS = Math.max(1, policy.heartbeatIntervalS);
  const instant = (iso: string | undefined) => (iso === undefined ? Number.NEGATIVE_INFINITY : Date.parse(iso));
  const graceUntil = instant(pipeline.graceUntil);
  if (graceUntil > t) return { cause: 'platform', why: 'grace', retryAfterS: Math.ceil((graceUntil - t) / 1000) };
  if (instant(pipeline.disruptedAt) >= last) return { cause: 'platform', why: 'disrupted', retryAfterS };
  const hearing = Math.max(instant(pipeline.heardAt), instant(pipeline.judgedAt));
  if (hearing < last + 2 * policy.heartbeatIntervalS * 1000)
    return { cause: 'platform', why: 'not-hearing', retryAfterS };
  return { cause: 'room' };
}

/**
 * How a consumer classifies one applied heartbeat by its lag (now − when its sidecar sent
 * it): `fresh` shows the pipeline current; `late` means its room looked silent, or nearly,
 * while it waited (a lag of the timeout less one interval); anything between says neither.
 */
export function heartbeatLag(
  lagMs: number,
  policy: Pick<HeartbeatEvidencePolicy, 'heartbeatTimeoutS' | 'heartbeatIntervalS'>,
): 'fresh' | 'late' | 'slow' {
  if (lagMs <= policy.heartbeatIntervalS * 1000) return 'fresh';
  if (lagMs >= (policy.heartbeatTimeoutS - policy.heartbeatIntervalS) * 1000) return 'late';
  return 'slow';
}
