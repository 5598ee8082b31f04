import middy from '@middy/core';
import { queueBacklog } from '../../core/infra/queue-backlog';
import { SqsReplyQueues } from '../../core/gameservers/reply-queues';
import { sweepRooms, type SweepResult } from '../../core/rooms/sweep';
import { sweepOrphans, type OrphanSweepResult } from '../../core/rooms/sweep-orphans';
import { childLogger } from '../../core/infra/logger';
import { platform, type Platform } from '../dependencies';
import { ecsHostHeartbeats } from '../../core/placement/ecs-host-heartbeats';
import { GameConfigurationNotFoundError } from '../../core/gameservers/errors';

const log = childLogger('room-sweeper');

/** Runs every minute in AWS (EventBridge schedule) and every few seconds in the local cloud. */
export async function sweep(): Promise<SweepResult & { orphans: OrphanSweepResult }> {
  const p = platform();
  const bounds = p.config.costBounds;
  const result = await sweepRooms(
    {
      members: p.sessions,
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
  await refillPools(p, new Set(result.live));
  if (result.heartbeats !== 'judged') {
    log.info('heartbeat loss not judged this sweep', { why: result.heartbeats, backlog: result.backlog });
  }
  return { ...result, orphans };
}

/**
 * Tops up every warm pool: each pooled configuration gets its `standby` servers in each
 * region that has hosts (the deployment's region when the fleet names none). A pool item whose
 * room is no longer live is dropped first. A configuration whose game refused the pool, or
 * that no longer exists, is skipped.
 */
async function refillPools(p: Platform, live: ReadonlySet<string>): Promise<void> {
  const pooled = (await p.pool.registered()).filter((c) => !c.unsupported);
  if (pooled.length === 0) return;
  const fleet = await p.fleet.read();
  const regions = fleet.regions.length > 0 ? fleet.regions.map((r) => r.name) : [p.config.roomRegion];
  const served = regions.filter((region) => fleet.hosts.length === 0 || fleet.hosts.some((h) => h.region === region));
  for (const entry of pooled) {
    let configuration;
    try {
      configuration = await p.gameConfigurations.get(entry.gameId, entry.version);
    } catch (error) {
      if (error instanceof GameConfigurationNotFoundError) {
        await p.pool.register(entry.gameId, entry.version, 0);
        continue;
      }
      throw error;
    }
    for (const region of served) {
      const started = await p.warmPool.refill(configuration, region, live).catch((error: Error) => {
        log.warn('could not refill a warm pool', { gameId: entry.gameId, region, error });
        return 0;
      });
      if (started > 0)
        log.info('refilled a warm pool', { gameId: entry.gameId, version: entry.version, region, started });
    }
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
