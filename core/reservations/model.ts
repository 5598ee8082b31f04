/** A player's slot in a room: reserved until the game server confirms it with `joined`. */
export interface Member {
  readonly roomId: string;
  readonly account: string;
  readonly state: 'reserved' | 'active';
  /** SHA-256 of the registration key; the key itself is never stored. */
  readonly keyHash: string;
  /** The player's scopes when they reserved, carried into the token `joined` returns. */
  readonly scopes: readonly string[];
  /** Reserved slots only: past this instant the slot is free, whatever the item says. */
  readonly expiresAt?: string;
  /** The `joined` request that consumed the current key (keys are single use). */
  readonly keyUsedBy?: string;
  /** The `joined` request that confirmed the slot. */
  readonly confirmedBy?: string;
  readonly confirmedAt?: string;
  /**
   * Active members only: the reservation's expiry before `joined` confirmed it (null when the
   * member was already active), so a `joined` the game never saw answered can be undone.
   */
  readonly reservedUntil?: string | null;
  readonly createdAt: string;
}

/** What a player receives for a slot: the key is shown once, here, and never again. */
export interface Reservation {
  readonly key: string;
  readonly host: string;
  readonly ports: readonly number[];
  readonly expiresAt: string;
}
