import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { queueBacklog } from '../../core/infra/queue-backlog';
import { SqsReplyQueues } from '../../core/gameservers/reply-queues';
import { sweepRooms, type SweepResult } from '../../core/rooms/sweep';
import { sweepOrphans, type LiveRooms, type OrphanSweepResult } from '../../core/rooms/sweep-orphans';
import { childLogger } from '../../core/infra/logger';
import { countMetric, sweeperMetrics } from '../../core/infra/metrics';
import { PhaseRunner, PhasesFailedError } from '../../core/infra/phases';
import { platform, tableUpgradeDependencies, type Platform } from '../dependencies';
import { serverReplacement } from '../replacement';
import { ecsHostHeartbeats } from '../../core/placement/ecs-host-heartbeats';
import { upgradeTable } from '../../core/upgrade/table-upgrade';

const log = childLogger('room-sweeper');

/**
 * The orphan pass starts no new call this long before the function's deadline: the table
 * upgrade after it keeps its own 15 s budget, and a few seconds spare cover the last calls
 * in flight. What it leaves, the next run finds again.
 */
const orphanReserveMs = 20_000;

/**
 * Runs every minute in AWS (EventBridge schedule) and every few seconds in the local cloud.
 * Its phases are independent: one that fails is logged and counted (`SweeperPhaseFailures`)
 * and the others still run; the run then fails as a whole, naming them. The ECS hosts'
 * heartbeats do not wait for the room and orphan passes at all: placement refuses every
 * create once the hosts look silent.
 */
export async function sweep(
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SweepResult & { orphans: OrphanSweepResult }> {
  const p = platform();
  const phases = new PhaseRunner(({ phase, error }) => {
    log.error('sweeper phase failed; the other phases ran', { phase, error: error as Error });
    countMetric(sweeperMetrics.phaseFailed, p.now());
  });
  const remainingMs = context?.getRemainingTimeInMillis();
  const stopBy = remainingMs === undefined ? undefined : new Date(p.now().getTime() + remainingMs - orphanReserveMs);
  const [, swept] = await Promise.all([
    phases.run('hosts', () => reportEcsHosts(p)),
    (async () => {
      const rooms = await phases.run('rooms', () => sweepLiveRooms(p));
      // Without the room pass's live set (it failed), every candidate's room is read strongly.
      const live = new Map(rooms?.live.map((roomId) => [roomId, rooms.serverEpochs[roomId] ?? 1]));
      const orphans = await phases.run('orphans', () => endOrphans(p, live, stopBy));
      return { rooms, orphans };
    })(),
  ]);
  await phases.run('tableUpgrade', () => upgradeTable(tableUpgradeDependencies(p), upgradePerSweep));
  phases.finish();
  if (!swept.rooms || !swept.orphans) throw new PhasesFailedError(phases.failures);
  return { ...swept.rooms, orphans: swept.orphans };
}

async function sweepLiveRooms(p: Platform): Promise<SweepResult> {
  const bounds = p.config.costBounds;
  const result = await sweepRooms(
    {
      members: p.rooms,
      live: p.liveRooms,
      rooms: p.rooms,
      spawner: p.spawner,
      replaceServer: serverReplacement(p),
      memory: p.sweeperState,
      backlog: queueBacklog(p.sqs, p.config.queueUrls.controllerRequests),
      now: p.now,
      costs: {
        defaults: { emptyGraceS: bounds.emptyRoomGraceS, maxLifetimeS: bounds.maxLifetimeS },
        slots: p.costs.slots,
      },
    },
    {
      heartbeatTimeoutS: p.config.heartbeatTimeoutS,
      heartbeatIntervalS: p.config.heartbeatIntervalS,
      sweepIntervalS: p.config.sweepIntervalS,
      lateToleranceS: 2,
      spawnGraceS: 2,
    },
  );
  if (result.failed.length > 0 || result.freedSlots > 0 || result.closed.length > 0) {
    log.info('swept rooms', { failedRooms: result.failed, closedRooms: result.closed, freedSlots: result.freedSlots });
  }
  if (result.heartbeats !== 'judged') {
    log.info('heartbeat loss not judged this sweep', { why: result.heartbeats, backlog: result.backlog });
  }
  return result;
}

/** Cost bounds' backstop: servers, slots and reply queues whose room is not live. */
async function endOrphans(p: Platform, live: LiveRooms, stopBy: Date | undefined) {
  const orphans = await sweepOrphans(
    live,
    {
      spawner: p.spawner,
      rooms: p.liveRooms,
      slots: p.costs.slots,
      queues: new SqsReplyQueues(p.sqs, p.config.replyQueuePrefix),
      now: p.now,
    },
    { graceS: p.config.costBounds.orphanGraceS, ...(stopBy ? { stopBy } : {}) },
  );
  if (orphans.stoppedTasks.length + orphans.releasedSlots.length + orphans.deletedQueues.length > 0) {
    log.info('ended orphans', { ...orphans });
  }
  if (orphans.cutShort) log.warn('the orphan pass ran out of time; the next sweep continues it');
  return orphans;
}

/**
 * The share of a sweep the table upgrade may take: at most 20 Scan pages of 1 MB (about 20 MB a
 * minute, 1.2 GB an hour) and no new page after 15 s, so the sweep keeps most of its 50 s.
 *
 * The upgrade rewrites the previous release's items of changed shape (core/upgrade/table-upgrade.ts),
 * a few pages per run until its marker says done. The sweeper runs it because it already runs
 * every minute wherever the platform does, deployed and in the local cloud, so no operator has
 * to remember it: a CDK custom resource would run only in AWS, hold the deploy until a
 * whole-table scan finished, and roll the deploy back when it failed; here a failed run is
 * retried by the next.
 */
const upgradePerSweep = { maxPages: 20, timeBudgetMs: 15_000 } as const;

/**
 * ECS hosts have no agent: each sweep measures their clusters and records their heartbeats.
 * A failed round makes the hosts look silent after their timeout, and placement then refuses
 * them, which is the point; it is a failed phase like any other.
 */
async function reportEcsHosts(p: Platform): Promise<void> {
  if (!p.ecs) return;
  const fleet = await p.fleet.read();
  if (!fleet.hosts.some((h) => h.ecs)) return;
  for (const { hostId, beat } of await ecsHostHeartbeats(p.ecs, fleet)) await p.fleet.heartbeat(hostId, beat, p.now());
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler((_event: unknown, context: Context) =>
  sweep(context),
);
