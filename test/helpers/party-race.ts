/**
 * The party race (docs/groups.md "Party joins"): parties and solo players join one room at the
 * same moment, more of them than it holds. What must hold, whoever serves the joins: no party
 * split (each party seated whole or not at all), no over-fill, every slot filled when demand
 * allows, and every answer true to the room (seated ⇔ in the members map).
 */

export interface PartyRaceShape {
  readonly parties: number;
  readonly partySize: number;
  readonly solos: number;
}

/** One join of the race: `seated`, `full` (409 ROOM_FULL), or another answer named. */
export type RaceJoin = (leader: string, party: readonly string[]) => Promise<string>;

export interface RaceRoom {
  readonly players: number;
  readonly maxPlayers: number;
  readonly members: readonly string[];
}

export interface PartyRaceRound {
  readonly splitParties: number;
  readonly overfill: number;
  /** Slots left free although more players asked than the room holds. */
  readonly unfilled: number;
  readonly seatedParties: number;
  readonly seatedSolos: number;
  /** Answers that disagree with the room (seated but absent, refused but present). */
  readonly untrue: number;
  /** Answers other than `seated` and `full`, by answer. */
  readonly others: Readonly<Record<string, number>>;
}

/** The accounts of one round: parties first (leader first in each), then the solos. */
export function raceAccounts(prefix: string, shape: PartyRaceShape): { parties: string[][]; solos: string[] } {
  const parties = Array.from({ length: shape.parties }, (_, p) =>
    Array.from({ length: shape.partySize }, (_, m) => `${prefix}-p${p}-m${m}`),
  );
  const solos = Array.from({ length: shape.solos }, (_, s) => `${prefix}-s${s}`);
  return { parties, solos };
}

/** Every join of the round at once, then the room read back and judged. */
export async function partyRaceRound(
  accounts: { readonly parties: readonly string[][]; readonly solos: readonly string[] },
  join: RaceJoin,
  readRoom: () => Promise<RaceRoom>,
): Promise<PartyRaceRound> {
  const groups = [...accounts.parties, ...accounts.solos.map((solo) => [solo])];
  const answers = await Promise.all(
    groups.map((group) => join(group[0]!, group.slice(1)).catch((error: unknown) => String(error))),
  );
  const room = await readRoom();
  const inRoom = new Set(room.members);
  const others: Record<string, number> = {};
  let splitParties = 0;
  let untrue = 0;
  let seatedParties = 0;
  let seatedSolos = 0;
  groups.forEach((group, i) => {
    const answer = answers[i]!;
    const present = group.filter((account) => inRoom.has(account)).length;
    if (present !== 0 && present !== group.length) splitParties++;
    if ((answer === 'seated') !== (present === group.length)) untrue++;
    if (answer === 'seated') {
      if (group.length > 1) seatedParties++;
      else seatedSolos++;
    } else if (answer !== 'full') others[answer] = (others[answer] ?? 0) + 1;
  });
  const demand = groups.reduce((sum, group) => sum + group.length, 0);
  return {
    splitParties,
    overfill: Math.max(0, room.players - room.maxPlayers) + Math.abs(room.members.length - room.players),
    unfilled: demand >= room.maxPlayers ? Math.max(0, room.maxPlayers - room.players) : 0,
    seatedParties,
    seatedSolos,
    untrue,
    others,
  };
}

/** The rounds added up: counts, not timings. */
export function totalOf(rounds: readonly PartyRaceRound[]): PartyRaceRound {
  const others: Record<string, number> = {};
  for (const round of rounds)
    for (const [answer, count] of Object.entries(round.others)) others[answer] = (others[answer] ?? 0) + count;
  const sum = (pick: (round: PartyRaceRound) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  return {
    splitParties: sum((r) => r.splitParties),
    overfill: sum((r) => r.overfill),
    unfilled: sum((r) => r.unfilled),
    seatedParties: sum((r) => r.seatedParties),
    seatedSolos: sum((r) => r.seatedSolos),
    untrue: sum((r) => r.untrue),
    others,
  };
}
