import type { ServerSlots } from '../gameservers/server-slot-store';
import type { Spawner } from '../gameservers/spawner';
import { RoomAlreadyEndedError, RoomNotFoundError } from './errors';
import type { Room } from './model';
import type { RoomStore } from './room-store';

/** Why the room's server is stopped: the spawner's log, and what the sidecar tells the game. */
const adminCloseReason = 'closed-by-admin';

export interface CloseRoomDependencies {
  readonly rooms: Pick<RoomStore, 'closeByAdmin'>;
  readonly spawner: Pick<Spawner, 'stop'>;
  readonly slots: Pick<ServerSlots, 'release'>;
  readonly now: () => Date;
}

/**
 * An operator ends a live room, as the sweeper ends one past a cost bound:
 *
 *   closeByAdmin (roomIsLive → closed, failureReason closed-by-admin) ─► stop its task ─► give back its slot
 *
 * The conditional write decides: of two operators closing at once, one gets the room, the
 * other 409. Ending the room ends its reservations with it: a closed room confirms no key and
 * takes no join. A caller that dies after the write leaves the task to the sweeper's orphan
 * pass, which stops every task whose room is no longer live, and the slot to its lease pass.
 *
 * @throws RoomNotFoundError 404 when there is no such room (or it ended long enough ago to be collected).
 * @throws RoomAlreadyEndedError 409 when it had already ended.
 */
export async function closeRoomByAdmin(roomId: string, deps: CloseRoomDependencies): Promise<Room> {
  const closed = await deps.rooms.closeByAdmin(roomId, deps.now());
  if (!closed.applied) {
    if (!closed.room) throw new RoomNotFoundError(roomId);
    throw new RoomAlreadyEndedError(roomId, closed.room.state, closed.room.failureReason);
  }
  // Stopping the task is what tells the game: the sidecar's SIGTERM sends it the protocol's
  // `shutdown` notice with its grace, then ends it (docs/game-server-protocol.md).
  if (closed.room.placement) await deps.spawner.stop(closed.room.placement.taskId, adminCloseReason);
  await deps.slots.release(roomId);
  return closed.room;
}
