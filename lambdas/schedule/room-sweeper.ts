import middy from '@middy/core';
import { queueBacklog } from '../../core/infra/queue-backlog';
import { SqsReplyQueues } from '../../core/gameservers/reply-queues';
import { sweepRooms, type SweepResult } from '../../core/rooms/sweep';
import { sweepOrphans, type OrphanSweepResult } from '../../core/rooms/sweep-orphans';
import { childLogger } from '../../core/infra/logger';
import { platform, type Platform } from '../dependencies';
import { ecsHostHeartbeats } from '../../core/placement/ecs-host-heartbeats';

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
  if (result.heartbeats !== 'judged') {
    log.info('heartbeat loss not judged this sweep', { why: result.heartbeats, backlog: result.backlog });
  }
  return { ...result, orphans };
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
