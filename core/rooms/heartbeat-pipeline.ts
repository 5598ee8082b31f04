import { heartbeatLag, type HeartbeatEvidencePolicy } from './heartbeat-evidence';
import type { PipelineReport, SweeperStateStore } from './sweeper-state-store';

type Policy = Pick<HeartbeatEvidencePolicy, 'heartbeatTimeoutS' | 'heartbeatIntervalS'>;

/**
 * How long a controller message handed back to the queue stays invisible, by the delivery
 * that failed (SQS counts from 1): 1, 2, 4 s, then twice the heartbeat interval at most.
 * While any message of a room's FIFO group is invisible, nothing behind it (its heartbeats)
 * is delivered; with the queue's own visibility timeout (60 s) one failed `joined` held a
 * healthy room silent long enough to be failed. With this, the group is free again within
 * a few seconds of the dependency coming back, well inside the heartbeat timeout.
 */
export function handBackVisibilityS(approximateReceiveCount: string | undefined, policy: Policy): number {
  const received = Number(approximateReceiveCount);
  const attempt = Number.isInteger(received) && received >= 1 ? received : 1;
  return Math.max(1, Math.min(2 ** Math.min(attempt - 1, 10), 2 * policy.heartbeatIntervalS));
}

/** What one consumer invocation saw of the pipeline. */
export interface BatchObservations {
  /** Messages it applied (so DynamoDB answers now). */
  readonly applied: number;
  /** A message it could not apply because a dependency failed, or a heartbeat it applied late. */
  readonly disrupted: boolean;
  /** A heartbeat it applied moments after its sidecar sent it. */
  readonly fresh: boolean;
}

/**
 * Turns what consumer invocations see into the reports the sweeper and the join path read
 * (core/rooms/heartbeat-evidence.ts), at most one write a second per process:
 *
 * - a disruption is written by the first invocation that applies anything after it: while
 *   the dependency is down the write would only hang; just after, every reader needs it;
 * - `heardAt` is refreshed at most once per heartbeat interval, and only by invocations
 *   that saw no disruption.
 *
 * One per process (a Lambda instance keeps it between invocations); a lost report only
 * makes a silent room's join answer "retry" a little longer, or the sweeper judge it sooner
 * by the backlog rule it used before.
 */
export class PipelineReporter {
  private disruptionPending = false;
  private lastHeardReport = Number.NEGATIVE_INFINITY;
  private lastDisruptionReport = Number.NEGATIVE_INFINITY;

  constructor(private readonly policy: Policy) {}

  /** Classifies one applied heartbeat by when SQS received it (`SentTimestamp`, ms; unknown when not positive). */
  lagOf(sentTimestamp: string | undefined, now: Date): 'fresh' | 'late' | 'slow' | undefined {
    const sent = Number(sentTimestamp);
    if (!Number.isFinite(sent) || sent <= 0) return undefined;
    return heartbeatLag(now.getTime() - sent, this.policy);
  }

  /** The report to write after an invocation, if any; call `written` once it is stored. */
  next(seen: BatchObservations, now: Date): PipelineReport | undefined {
    if (seen.disrupted) this.disruptionPending = true;
    if (seen.applied === 0) return undefined;
    const t = now.getTime();
    if (this.disruptionPending) return t - this.lastDisruptionReport >= 1_000 ? { disruptedAt: now } : undefined;
    if (seen.fresh && t - this.lastHeardReport >= this.policy.heartbeatIntervalS * 1000) return { heardAt: now };
    return undefined;
  }

  written(report: PipelineReport): void {
    if ('heardAt' in report) {
      this.lastHeardReport = report.heardAt.getTime();
      return;
    }
    this.lastDisruptionReport = report.disruptedAt.getTime();
    this.disruptionPending = false;
  }

  /** `next`, written to `store`; a failed write is kept for the next invocation. */
  async report(seen: BatchObservations, now: Date, store: Pick<SweeperStateStore, 'report'>): Promise<void> {
    const report = this.next(seen, now);
    if (!report) return;
    await store.report(report);
    this.written(report);
  }
}
