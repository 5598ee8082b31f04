import middy from '@middy/core';
import { queueBacklog } from '../../core/infra/queue-backlog';
import { SqsReplyQueues } from '../../core/gameservers/reply-queues';
import { sweepRooms, type SweepResult } from '../../core/rooms/sweep';
import { sweepOrphans, type OrphanSweepResult } from '../../core/rooms/sweep-orphans';
import { childLogger } from '../../core/infra/logger';
import { platform, type Platform } from '../dependencies';
import { ecsHostHeartbeats } from '../../core/placement/ecs-host-heartbeats';
import { upgradeTable } from '../../core/upgrade/table-upgrade';

const log = childLogger('room-sweeper');

/** Runs every minute in AWS (EventBridge schedule) and every few seconds in the local cloud. */
export async function sweep(): Promise<SweepResult & { orphans: OrphanSweepResult }> {
  const p = platform();
  const bounds = p.config.costBounds;
  const result = await sweepRooms(
    {
      members: p.rooms,
      live: p.liveRooms,
      rooms: p.rooms,
      spawner: p.spawner,
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
  // Cost bounds' backstop: servers, slots and reply queues whose room is not live.
  const orphans = await sweepOrphans(
    new Set(result.live),
    {
      spawner: p.spawner,
      rooms: p.rooms,
      slots: p.costs.slots,
      queues: new SqsReplyQueues(p.sqs, p.config.replyQueuePrefix),
      now: p.now,
    },
    { graceS: bounds.orphanGraceS },
  );
  if (orphans.stoppedTasks.length + orphans.releasedSlots.length + orphans.deletedQueues.length > 0) {
    log.info('ended orphans', { ...orphans });
  }
  await reportEcsHosts(p);
  await upgradeSomeOfTheTable(p);
  if (result.heartbeats !== 'judged') {
    log.info('heartbeat loss not judged this sweep', { why: result.heartbeats, backlog: result.backlog });
  }
  return { ...result, orphans };
}

/**
 * The share of a sweep the one-time pass may take: at most 20 Scan pages of 1 MB (about 20 MB a
 * minute, 1.2 GB an hour) and no new page after 15 s, so the sweep keeps most of its 50 s.
 */
const upgradePerSweep = { maxPages: 20, timeBudgetMs: 15_000 } as const;

/**
 * The previous release's items of changed shape (core/upgrade/table-upgrade.ts), a few pages
 * per run until its marker says done. The sweeper runs it because it already runs every minute
 * wherever the platform does, deployed and in the local cloud, so no operator has to remember
 * it: a CDK custom resource would run only in AWS, hold the deploy until a whole-table scan
 * finished, and roll the deploy back when it failed; here a failed run is retried by the next.
 */
async function upgradeSomeOfTheTable(p: Platform): Promise<void> {
  try {
    await upgradeTable({ store: p.tableUpgrade, bans: p.abuse, rooms: p.rooms, now: p.now }, upgradePerSweep);
  } catch (error) {
    log.warn('the table upgrade stopped; the next sweep resumes it', { error: error as Error });
  }
}

/** ECS hosts have no agent: each sweep measures their clusters and records their heartbeats. */
async function reportEcsHosts(p: Platform): Promise<void> {
  if (!p.ecs) return;
  const fleet = await p.fleet.read();
  if (!fleet.hosts.some((h) => h.ecs)) return;
  try {
    for (const { hostId, beat } of await ecsHostHeartbeats(p.ecs, fleet))
      await p.fleet.heartbeat(hostId, beat, p.now());
  } catch (error) {
    // A missed round makes the hosts look silent after their timeout: placement then refuses, which is the point.
    log.warn('could not measure the ECS hosts', { error: error as Error });
  }
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler(sweep);
