/** What the bench read back from one room after filling it. */
export interface RoomCheck {
  readonly roomId: string;
  /** Joins answered 200 in this room (the creator's slot not counted). */
  readonly winners: number;
  readonly players: number;
  /** Entries of the session document's `members` map (undefined: the item has none). */
  readonly members: number | undefined;
  readonly maxPlayers: number;
}

export interface Exactness {
  /** Slots taken beyond capacity (or winners beyond the free slots), summed over rooms: must be 0. */
  readonly overfill: number;
  /** Every room: K winners for its K free slots, players = capacity = members. */
  readonly exact: boolean;
  readonly problems: string[];
}

/**
 * Exactness of filled rooms: no room holds more than its capacity, each room's free slots
 * went to exactly as many winners, and the room's count equals the size of its document's
 * `members` map.
 */
export function judgeExactness(checks: readonly RoomCheck[], freeSlots: number): Exactness {
  const problems: string[] = [];
  let overfill = 0;
  for (const c of checks) {
    overfill += Math.max(0, c.players - c.maxPlayers, c.winners - freeSlots);
    if (c.winners !== freeSlots) problems.push(`${c.roomId}: ${c.winners} winners for ${freeSlots} free slots`);
    if (c.players !== c.maxPlayers) problems.push(`${c.roomId}: ${c.players} players in ${c.maxPlayers} slots`);
    if (c.members === undefined) problems.push(`${c.roomId}: no members map in its session document`);
    else if (c.members !== c.players) problems.push(`${c.roomId}: ${c.members} members but ${c.players} players`);
  }
  return { overfill, exact: problems.length === 0, problems };
}
