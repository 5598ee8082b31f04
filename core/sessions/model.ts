/**
 * Session documents (API.md "Session documents"): a room is one session, stored as ONE item
 * (core/sessions/document.ts). This file holds the types every part of the platform shares:
 * templates build `SessionConstants`, rooms store them, and the join path reads them.
 */

/** Who may read and join a session. `open`: anyone; `visible`: readable, not joinable; `private`: members only. */
export const visibilities = ['open', 'visible', 'private'] as const;
export type Visibility = (typeof visibilities)[number];

/** Whether a session takes joins right now (a room property members may change). */
export const joinabilities = ['open', 'inviteOnly', 'closed'] as const;
export type Joinability = (typeof joinabilities)[number];

/** A member's state. `removed` is never stored: a removed member is gone from the document. */
export const memberStates = ['reserved', 'ready', 'active', 'inactive'] as const;
export type MemberState = (typeof memberStates)[number];

/**
 * How long a member may stay in a state before it is removed, in ms: `null` = never, `0` =
 * at once. `sessionEmptyMs`: how long a session may have no live member before it is gone.
 * Judged lazily against the platform's clock on every read and write (core/sessions/rules.ts).
 */
export interface SessionTimeouts {
  readonly reservedMs: number | null;
  readonly readyMs: number | null;
  readonly inactiveMs: number | null;
  readonly sessionEmptyMs: number | null;
}

/** What a template fixes for every session made from it; immutable once the room exists. */
export interface SessionConstants {
  readonly maxMembers: number;
  readonly visibility: Visibility;
  readonly timeouts: SessionTimeouts;
  readonly custom: Readonly<Record<string, unknown>>;
}

/**
 * The default template of a configuration-based room: as before issue 9, a reservation
 * lasts `reservationTimeoutS`, and nothing else times out.
 */
export function defaultConstants(room: {
  readonly maxPlayers: number;
  readonly reservationTimeoutS: number;
}): SessionConstants {
  return {
    maxMembers: room.maxPlayers,
    visibility: 'open',
    timeouts: { reservedMs: room.reservationTimeoutS * 1000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
    custom: {},
  };
}
