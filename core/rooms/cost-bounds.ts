import type { SidecarRoomBounds } from '../gameservers/spawner';
import type { SessionDocument } from './document';
import { hostingOf } from './room-response';
import { emptySinceOf } from './session-end';
import type { Room, RoomBounds } from './model';
import { constantsOf } from './session-model';

/** Why the platform ends a room that is otherwise fine (docs/cost-bounds.md). */
export type CostBoundReason = 'empty' | 'lifetime';

/**
 * Whether a live dedicated room has outlived a cost bound at `now`, and which. Pure.
 *
 * - `lifetime`: `maxLifetimeS` after creation, players or not.
 * - `empty`: ready, and no live member for `emptyGraceS`. The clock starts when the room
 *   became ready or its last member left, whichever is later: a freshly created room whose
 *   creator still holds a (pending) reservation is not empty, and one whose creator never came
 *   is empty from the moment that reservation expired.
 *
 * A room whose document cannot be read (`doc` undefined) is judged by its lifetime only.
 */
export function costBoundReached(
  room: Room,
  doc: SessionDocument | undefined,
  now: Date,
  defaults: RoomBounds,
): CostBoundReason | undefined {
  if (hostingOf(room) !== 'dedicated') return undefined;
  // A spawning room is bounded by its spawn deadline; only a ready one is closed (not failed).
  if (room.state !== 'ready') return undefined;
  const bounds = room.bounds ?? defaults;
  if (now.getTime() >= Date.parse(room.createdAt) + bounds.maxLifetimeS * 1000) return 'lifetime';
  // A standby server has no players by design: only its lifetime bounds it.
  if (!doc || room.standby) return undefined;
  const since = emptySinceOf(room, doc, now);
  if (since !== undefined && now.getTime() >= since + bounds.emptyGraceS * 1000) return 'empty';
  return undefined;
}

/** The bounds a room of this configuration gets: its own overrides, else the deployment's. */
export function roomBoundsOf(
  configuration: { readonly emptyRoomGraceS?: number; readonly maxLifetimeS?: number },
  defaults: { readonly emptyRoomGraceS: number; readonly maxLifetimeS: number },
): RoomBounds {
  return {
    emptyGraceS: configuration.emptyRoomGraceS ?? defaults.emptyRoomGraceS,
    maxLifetimeS: configuration.maxLifetimeS ?? defaults.maxLifetimeS,
  };
}

/**
 * The bounds a room's sidecar enforces itself, so they hold when the sweeper does not. The
 * empty bound needs how long a member may hold a place without the game's `joined`: its
 * reservation, then `ready`. The sidecar sees only the game's `joined` and `left`, not the
 * session's members, so it may judge a room empty only where the platform would too: when
 * both states time out. A template where either never does (`readyMs` null, the default:
 * players may wait `ready` in a lobby for as long as they like, and the platform keeps their
 * room), and a standby server (its room's template comes only with the hand-over), leave the
 * sidecar its lifetime bound.
 */
export function sidecarBoundsOf(room: Room): SidecarRoomBounds | undefined {
  if (!room.bounds) return undefined;
  const { reservedMs, readyMs } = constantsOf(room).timeouts;
  const holdMs = room.standby || reservedMs === null || readyMs === null ? undefined : reservedMs + readyMs;
  return {
    maxLifetimeS: room.bounds.maxLifetimeS,
    emptyGraceS: room.bounds.emptyGraceS,
    ...(holdMs === undefined ? {} : { memberHoldS: Math.ceil(holdMs / 1000) }),
  };
}
