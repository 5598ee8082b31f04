/**
 * The session document's vocabulary (docs/api.md, "Session documents"): what a template fixes for
 * every session made from it, and what members may change afterwards.
 */

export const sessionVisibilities = ['open', 'visible', 'private'] as const;
export type SessionVisibility = (typeof sessionVisibilities)[number];

export const sessionJoinabilities = ['open', 'inviteOnly', 'closed'] as const;
export type SessionJoinability = (typeof sessionJoinabilities)[number];

export const memberStates = ['reserved', 'ready', 'active', 'inactive'] as const;
export type MemberState = (typeof memberStates)[number];

/** The states a member may set itself to (`reserved` is only ever the platform's doing). */
export const memberSettableStates = ['ready', 'active', 'inactive'] as const;
export type MemberSettableState = (typeof memberSettableStates)[number];

/** Milliseconds, or null for never; 0 means at once. */
export type SessionTimeout = number | null;

export interface SessionTimeouts {
  readonly reservedMs: SessionTimeout;
  readonly readyMs: SessionTimeout;
  readonly inactiveMs: SessionTimeout;
  readonly sessionEmptyMs: SessionTimeout;
  /**
   * Peer-hosted sessions only: an active member whose last socket to the session closed is
   * seen `inactive` this long after (core/rooms/presence.ts). Absent or null: sockets are not
   * presence (rooms made before it, dedicated rooms, templates that leave it out).
   */
  readonly disconnectedMs?: SessionTimeout;
}

/** Fixed when the session is created; never written afterwards (a write answers 403). */
export interface SessionConstants {
  readonly maxMembers: number;
  readonly visibility: SessionVisibility;
  readonly timeouts: SessionTimeouts;
  readonly custom: Record<string, unknown>;
  /** Whether the arbiter's loss elects another (true) or ends the session (false). Absent: false. */
  readonly migrateHost?: boolean;
  /** How long the arbiter may be silent before it counts as lost. Absent: `hostRuleDefaults`. */
  readonly hostTimeoutMs?: number;
  /** What the session can do beyond the default (`large`: up to 1,000 members, as their own items). */
  readonly capabilities?: readonly SessionCapability[];
}

export const sessionCapabilities = ['large'] as const;
type SessionCapability = (typeof sessionCapabilities)[number];

/**
 * Whether a session keeps its members as their own items and only counts on the room's item
 * (core/rooms/large-members.ts): the one item could not hold 1,000 members within DynamoDB's
 * 400 KB, and every join would rewrite all of them.
 */
export function isLargeSession(constants: Pick<SessionConstants, 'capabilities'> | undefined): boolean {
  return constants?.capabilities?.includes('large') === true;
}

/** The arbiter's rules as a session's constants fix them (docs/api.md "Live sessions"). */
export interface HostRules {
  readonly migrateHost: boolean;
  readonly hostTimeoutMs: number;
}

/**
 * `hostTimeoutMs` bounds: at least a second (a socket ping or a PATCH a second is the most a
 * host is asked for), at most ten minutes (a session whose host is gone that long is over).
 */
export const hostTimeoutBounds = { minMs: 1_000, maxMs: 600_000 } as const;

export const hostRuleDefaults: HostRules = { migrateHost: false, hostTimeoutMs: 15_000 };

/**
 * Whether a peer-hosted session's template asks for an arbiter: it names `migrateHost` or
 * `hostTimeoutMs`. One that names neither has none, so nothing but its timeouts ends it: a
 * session whose clients never ping (they were written before arbiters) is not ended as
 * host-less a few seconds after its creator's last write.
 */
export function asksForArbiter(
  constants: Pick<SessionConstants, 'migrateHost' | 'hostTimeoutMs' | 'capabilities'>,
): boolean {
  // A large session has none (its template may only say `migrateHost: false`).
  if (isLargeSession(constants)) return false;
  return constants.migrateHost !== undefined || constants.hostTimeoutMs !== undefined;
}

/** The arbiter's rules of a room's constants (rooms made before them: the defaults). */
export function hostRulesOf(constants: Pick<SessionConstants, 'migrateHost' | 'hostTimeoutMs'>): HostRules {
  return {
    migrateHost: constants.migrateHost ?? hostRuleDefaults.migrateHost,
    hostTimeoutMs: constants.hostTimeoutMs ?? hostRuleDefaults.hostTimeoutMs,
  };
}

/** Written by members; `joinability` is the one system property. */
export interface SessionProperties {
  readonly joinability: SessionJoinability;
  readonly custom: Record<string, unknown>;
}

/**
 * Caps on the client-chosen JSON a session document holds. Every member's properties live in
 * the room's one item (DynamoDB's limit is 400 KB): 100 members × 512 B plus the room's own
 * 2 KB + 2 KB keeps the custom part of a full room near 55 KB.
 */
export const sessionCustomLimits = {
  constantsBytes: 2 * 1024,
  propertiesBytes: 2 * 1024,
  memberPropertiesBytes: 512,
} as const;

export { maxLargeSessionMembers, maxSessionMembers } from '../infra/session-bounds';

/** Shorter names the session document's rules use. */
export type Joinability = SessionJoinability;

/**
 * The default template of a configuration-based room: a reservation lasts
 * `reservationTimeoutS`, and nothing else times out, so a room created without a template
 * times its members as the configuration says.
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

/** The constants a room was created with (rooms made before templates: the default template). */
export function constantsOf(room: {
  readonly constants?: SessionConstants;
  readonly maxPlayers: number;
  readonly reservationTimeoutS: number;
}): SessionConstants {
  return room.constants ?? defaultConstants(room);
}
