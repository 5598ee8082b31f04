import type { ControllerRequest } from '../protocol/controller-messages';
import { costBoundReached } from '../rooms/cost-bounds';
import type { ControllerEventDependencies } from './ports';

type Heartbeat = Extract<ControllerRequest, { type: 'heartbeat' }>;

/**
 * Applies a heartbeat, then judges the room's cost bounds (core/rooms/cost-bounds.ts, the
 * sweeper's rule) on the room and document the write answered with: a room ends within a
 * heartbeat interval of its bound, whether or not the sweeper runs, for no request beyond the
 * write unless a bound is reached.
 *
 *   recordHeartbeat ─► bound? ─► markClosed (conditional) ─► `stop` on the sidecar's reply queue
 *
 * The close is the sweeper's own conditional write, so a redelivered heartbeat (the room no
 * longer live: not applied) or a second consumer, or the sweeper, racing it closes the room
 * once, and only the one that closed it tells the sidecar. The sidecar then ends the game and
 * reports `exited`, which gives the room's server slot back.
 */
export async function applyHeartbeat(request: Heartbeat, deps: ControllerEventDependencies, now: Date): Promise<void> {
  // A replaced server's heartbeat is refused: it must not keep the room looking alive.
  const beat = await deps.rooms.recordHeartbeat(request.roomId, now, request.epoch ?? 1);
  const bounds = deps.costBounds;
  if (!beat.applied || !bounds) return;
  const reason = costBoundReached(beat.room, beat.doc, now, bounds.defaults);
  if (!reason) return;
  // Empty: only if no join landed since the write that showed it empty (heartbeats are quiet:
  // they leave the change number as it was).
  const closed = await deps.rooms.markClosed(
    request.roomId,
    now,
    reason === 'empty' ? { changeNumber: beat.room.changeNumber } : undefined,
  );
  if (!closed.applied) return;
  deps.log.info('closed a room for a cost bound; telling its sidecar to end it', { roomId: request.roomId, reason });
  try {
    // To the sidecar that beat (its epoch's heartbeat was accepted: the room's current server).
    // `gone`: the sidecar already deleted its queue as it ended; nothing is left to tell.
    await bounds.tell(request.roomId, { type: 'stop', reason }, request.epoch ?? 1);
  } catch (error) {
    // The room is closed and its next heartbeat is refused, so no later one tells the
    // sidecar again: the sweeper's orphan pass stops the task, past the orphan grace.
    deps.log.warn('closed a room for a cost bound but could not tell its sidecar', {
      roomId: request.roomId,
      reason,
      error: error as Error,
    });
  }
}
