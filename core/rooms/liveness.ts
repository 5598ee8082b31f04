import { heartbeatDefaults } from '../protocol/heartbeat';
import type { Room } from './model';

export { heartbeatDefaults };

/** The oldest heartbeat that still shows a room's server alive at `asOf` (ISO, comparable as text). */
export function heartbeatCutoff(asOf: Date, timeoutS: number): string {
  return new Date(asOf.getTime() - timeoutS * 1000).toISOString();
}

/**
 * A ready room whose server has not been heard from for the whole timeout before `asOf`.
 * A room with no heartbeat recorded at all (never the case once ready) is no evidence.
 */
export function heartbeatSilent(room: Room, asOf: Date, timeoutS: number): boolean {
  return (
    room.state === 'ready' &&
    room.lastHeartbeatAt !== undefined &&
    room.lastHeartbeatAt < heartbeatCutoff(asOf, timeoutS)
  );
}

/**
 * Whether a room takes joins at `now`: spawning (the join waits for `inited`), or ready and
 * heard from within the heartbeat timeout. A silent room is refused but not failed: failing
 * is the sweeper's, once it knows the silence is the room's and not the platform's backlog.
 */
export function isJoinable(room: Room, now: Date, heartbeatTimeoutS: number): boolean {
  if (room.state === 'spawning') return true;
  return room.state === 'ready' && !heartbeatSilent(room, now, heartbeatTimeoutS);
}
