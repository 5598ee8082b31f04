import type { MemberState } from './session-model';

/**
 * A player's slot in a room, as the platform reads it out of the session document
 * (core/rooms/document.ts stores it in a few dozen bytes).
 */
export interface Member {
  readonly roomId: string;
  readonly account: string;
  readonly state: MemberState;
  /** The stored hash of the current registration key (128 bits of SHA-256); the key itself is never stored. */
  readonly keyHash?: string;
  /** The player's scopes when they reserved, carried into the token `joined` returns. */
  readonly scopes: readonly string[];
  /** Past this instant the slot is free, whatever the item says; absent: no timeout runs (yet). */
  readonly expiresAt?: string;
  /** Reserved in a spawning room: the reservation's clock starts when the room becomes ready. */
  readonly pending?: boolean;
  /** The `joined` request that consumed the current key (keys are single use). */
  readonly keyUsedBy?: string;
  readonly confirmedAt?: string;
  /** Since when the member is in its state. */
  readonly since: string;
}

/** A member as a room is created with it (the creator's reservation). */
export interface NewMember {
  readonly roomId?: string;
  readonly state?: 'reserved';
  readonly account: string;
  /** SHA-256 (hex) of the registration key. */
  readonly keyHash: string;
  readonly scopes: readonly string[];
  /** A fixed expiry; without it the reservation is pending until the room is ready. */
  readonly expiresAt?: string;
  readonly createdAt: string;
  /** The set hash of the build the member created or joined with (docs/versions.md), if it sent one. */
  readonly v?: string;
}

/** What a player receives for a slot: the key is shown once, here, and never again. */
export interface Reservation {
  readonly key: string;
  /** Where to connect; absent in a peer-hosted session (no server: peers connect to each other). */
  readonly host?: string;
  readonly ports?: readonly number[];
  readonly expiresAt: string;
}
