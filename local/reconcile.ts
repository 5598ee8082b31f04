import { childLogger } from '../core/infra/logger';
import type { LiveRoomIndex } from '../core/rooms/live-room-store';
import type { RoomStore } from '../core/rooms/room-store';
import { stopLeftoverSidecars } from './fleet-owner';

const log = childLogger('local-cloud');

export interface ReconcileResult {
  /** Rooms of an earlier run (kept by `--persist`) that had no server any more. */
  readonly failedRooms: string[];
  /** Sidecar processes of an earlier run that were still alive. */
  readonly stoppedProcesses: number[];
}

/**
 * Makes the table agree with the processes that really run, before the local cloud takes
 * requests: a server without a room (a sidecar of an earlier run whose platform died) is
 * stopped, and a live room without a server is failed (`sidecar-lost`). A new run's fleet
 * starts empty and never adopts an earlier run's servers (their SQS endpoint is gone), so
 * every room still spawning or ready at this point has none.
 */
export async function reconcileAtStart(deps: {
  readonly live: Pick<LiveRoomIndex, 'liveRooms'>;
  readonly rooms: Pick<RoomStore, 'markFailed'>;
  readonly now: () => Date;
}): Promise<ReconcileResult> {
  const stoppedProcesses = stopLeftoverSidecars();
  const failedRooms: string[] = [];
  for (const { room } of await deps.live.liveRooms()) {
    // A peer-hosted session has no server to lose.
    if (room.hosting === 'peerHosted') continue;
    const change = await deps.rooms.markFailed(room.roomId, 'sidecar-lost', deps.now());
    if (change.applied) failedRooms.push(room.roomId);
  }
  if (failedRooms.length > 0) {
    log.warn('failed rooms of an earlier run: their game servers are gone', { failedRooms });
  }
  return { failedRooms, stoppedProcesses };
}
