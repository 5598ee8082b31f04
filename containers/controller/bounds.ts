import type { SidecarEnvironment } from '../../core/gameservers/sidecar-environment';

/**
 * The bounds the sidecar enforces on its own room, so that an empty or overlong room, or one
 * the platform can no longer see, ends even when the platform's sweeper does not run
 * (docs/cost-bounds.md "When the sweeper fails"). Every clock here is the sidecar's own and
 * starts no earlier than the platform's, and every deadline adds `marginMs`: while the
 * sweeper works, it ends the room first.
 */
export interface SelfBounds {
  /** The room's maximum lifetime; absent: not bounded here. */
  readonly maxLifetimeMs?: number;
  /** The room's empty grace; absent: no empty bound here. */
  readonly emptyGraceMs?: number;
  /**
   * The longest a member can stay in the room without the game's `joined` (reservation,
   * then `ready`); absent when the room's template lets one stay forever: no empty bound here.
   */
  readonly memberHoldMs?: number;
  /** Added to the lifetime and empty deadlines. */
  readonly marginMs: number;
  /** No request reached the platform for this long: the room runs unwatched, and ends. */
  readonly unreachableMs: number;
}

/** What the sidecar has seen of its room, in its own monotonic milliseconds. */
export interface RoomWatch {
  /** The sidecar's start, or the hand-over of a standby server (`assign`): the lifetime's start. */
  readonly since: number;
  /**
   * Since when no confirmed player has been in the room: set at an accepted `inited` (at the
   * hand-over for a standby server) and whenever the last player's `left` is accepted; absent
   * while a player is in, before `inited`, and while a standby server waits for its room.
   */
  readonly emptySince?: number;
  /** The last send the request queue took (at start: the start). */
  readonly lastDelivered: number;
}

export type SelfBoundReason = 'lifetime' | 'empty' | 'unwatched';

/** Which bound the room has passed at `now`, if any. Pure. */
export function selfBoundReached(watch: RoomWatch, bounds: SelfBounds, now: number): SelfBoundReason | undefined {
  if (bounds.maxLifetimeMs !== undefined && now >= watch.since + bounds.maxLifetimeMs + bounds.marginMs) {
    return 'lifetime';
  }
  if (
    watch.emptySince !== undefined &&
    bounds.emptyGraceMs !== undefined &&
    bounds.memberHoldMs !== undefined &&
    now >= watch.emptySince + bounds.memberHoldMs + bounds.emptyGraceMs + bounds.marginMs
  ) {
    return 'empty';
  }
  if (now >= watch.lastDelivered + bounds.unreachableMs) return 'unwatched';
  return undefined;
}

/** The watch after the player count changed to `players` at `now`. Pure. */
export function afterPlayers(watch: RoomWatch, players: number, now: number): RoomWatch {
  if (players > 0) return withoutEmpty(watch);
  return watch.emptySince === undefined ? { ...watch, emptySince: now } : watch;
}

/** The watch once the room is ready for players at `now`: an accepted `inited`, or a standby server's hand-over. */
export function afterReady(watch: RoomWatch, now: number, handOver: boolean): RoomWatch {
  return { ...watch, ...(handOver ? { since: now } : {}), emptySince: now };
}

function withoutEmpty(watch: RoomWatch): RoomWatch {
  const { emptySince: _emptySince, ...rest } = watch;
  return rest;
}

/** The bounds of the sidecar's environment, in ms. Pure. */
export function selfBoundsOf(env: SidecarEnvironment): SelfBounds {
  const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : Math.round(seconds * 1000));
  return {
    maxLifetimeMs: ms(env.ROOM_MAX_LIFETIME_S),
    emptyGraceMs: ms(env.ROOM_EMPTY_GRACE_S),
    memberHoldMs: ms(env.ROOM_MEMBER_HOLD_S),
    marginMs: ms(env.ROOM_BOUND_MARGIN_S) ?? 0,
    unreachableMs: ms(env.PLATFORM_UNREACHABLE_S) ?? 0,
  };
}
