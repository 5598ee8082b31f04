import middy from '@middy/core';
import { MemberStore } from '../../core/reservations/store';
import { sweepRooms } from '../../core/rooms/sweep';
import { childLogger } from '../../core/infra/logger';
import { platform } from '../dependencies';

const log = childLogger('room-sweeper');

/** Runs every minute in AWS (EventBridge schedule) and every few seconds in the local cloud. */
export async function sweep(): Promise<{ failed: string[]; freedSlots: number }> {
  const p = platform();
  const result = await sweepRooms(
    {
      members: new MemberStore(p.db, p.config.tableName),
      db: p.db,
      tableName: p.config.tableName,
      rooms: p.rooms,
      spawner: p.spawner,
      now: p.now,
    },
    { heartbeatTimeoutS: p.config.heartbeatTimeoutS, spawnGraceS: 2 },
  );
  if (result.failed.length > 0 || result.freedSlots > 0) {
    log.info('swept rooms', { failedRooms: result.failed, freedSlots: result.freedSlots });
  }
  return result;
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler(sweep);
