import middy from '@middy/core';
import { queueBacklog } from '../../core/infra/queue-backlog';
import { sweepRooms, type SweepResult } from '../../core/rooms/sweep';
import { childLogger } from '../../core/infra/logger';
import { platform } from '../dependencies';

const log = childLogger('room-sweeper');

/** Runs every minute in AWS (EventBridge schedule) and every few seconds in the local cloud. */
export async function sweep(): Promise<SweepResult> {
  const p = platform();
  const result = await sweepRooms(
    {
      members: p.sessions,
      live: p.liveRooms,
      rooms: p.rooms,
      spawner: p.spawner,
      memory: p.sweeperState,
      backlog: queueBacklog(p.sqs, p.config.queueUrls.controllerRequests),
      now: p.now,
    },
    {
      heartbeatTimeoutS: p.config.heartbeatTimeoutS,
      heartbeatIntervalS: p.config.heartbeatIntervalS,
      sweepIntervalS: p.config.sweepIntervalS,
      lateToleranceS: 2,
      spawnGraceS: 2,
    },
  );
  if (result.failed.length > 0 || result.freedSlots > 0) {
    log.info('swept rooms', { failedRooms: result.failed, freedSlots: result.freedSlots });
  }
  if (result.heartbeats !== 'judged') {
    log.info('heartbeat loss not judged this sweep', { why: result.heartbeats, backlog: result.backlog });
  }
  return result;
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler(sweep);
