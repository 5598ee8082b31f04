import { randomUUID } from 'node:crypto';
import { benchGame, type BenchPlatform } from '../bench-platform';
import { phase } from '../progress';
import { formatRatio, ratio } from '../stats';
import type { ScenarioSummary } from '../summary';
import { partyRaceRound, raceAccounts, totalOf, type PartyRaceRound } from '../../helpers/party-race';

/**
 * Groups (docs/groups.md): party joins judged by counts, not timings.
 *
 * - The party race: parties and solo players join one room at once, more than it holds, many
 *   times: a party split, an over-filled room or a slot left free would each be a fault.
 * - Party matchmaking: players in parties of 1–5 call find-or-create at once for rooms of 10:
 *   rooms made ÷ the fewest that seat everyone, and no party split.
 */
export interface GroupsOptions {
  readonly race: {
    readonly rounds: number;
    readonly parties: number;
    readonly partySize: number;
    readonly solos: number;
  };
  readonly matchmaking: { readonly players: number; readonly roomSize: number; readonly largestParty: number };
}

export interface PartyMatchmakingFigures {
  readonly players: number;
  readonly parties: number;
  readonly roomSize: number;
  readonly roomsCreated: number;
  readonly idealRooms: number;
  /** Parties whose members the rooms read back hold in more than one room, or not at all. */
  readonly splitParties: number;
  readonly overfill: number;
  readonly placed: number;
  /**
   * Players the rooms hold when read back, summed: above `players` when a party's request
   * outlived its route's timeout, was retried and was seated a second time elsewhere.
   */
  readonly seatsHeld: number;
  /** Rooms by how many players they hold when read back: where the packing fell short. */
  readonly occupancy: Readonly<Record<number, number>>;
  readonly errorStatuses: Readonly<Record<string, number>>;
}

export interface GroupsResult {
  readonly scenario: 'groups';
  readonly race: PartyRaceRound & { readonly rounds: number; readonly slots: number };
  readonly shape: GroupsOptions['race'];
  readonly matchmaking: PartyMatchmakingFigures;
}

const raceVersion = '1.0.0-groups-race';
const matchmakingVersion = '1.0.0-groups-mm';
const retryable = new Set([429, 503]);

export async function benchGroups(platform: BenchPlatform, options: GroupsOptions): Promise<GroupsResult> {
  const race = await benchPartyRace(platform, options.race);
  const matchmaking = await benchPartyMatchmaking(platform, options.matchmaking);
  await platform.releaseRooms();
  return { scenario: 'groups', race, shape: options.race, matchmaking };
}

/** Each round a fresh room whose racers' slots are `slots` (its creator holds one more). */
async function benchPartyRace(platform: BenchPlatform, shape: GroupsOptions['race']): Promise<GroupsResult['race']> {
  const slots = 16;
  await platform.configureVersion(raceVersion, slots + 1);
  const accounts = raceAccounts('groups-race', shape);
  const everyone = [...accounts.parties.flat(), ...accounts.solos];
  const minted = await platform.tokens('groups-race', everyone.length);
  const tokenOf = new Map(everyone.map((account, i) => [account, minted[i]!]));
  // The accounts' tokens say who they are: `tokens()` names them `<prefix>-<i>`.
  const racers = new Map(everyone.map((account, i) => [`groups-race-${i}`, account]));
  // A creator per room: one account's live rooms are bounded.
  const creators = await platform.tokens('groups-race-creator', shape.rounds);
  const rounds: PartyRaceRound[] = [];
  await phase(`groups: party race × ${shape.rounds}`, shape.rounds, async (progress) => {
    for (let n = 0; n < shape.rounds; n++) {
      const creator = creators[n]!;
      const made = await platform.call('POST', '/v1/rooms', {
        token: creator,
        body: { gameId: benchGame.gameId, version: raceVersion },
      });
      if (made.status !== 201) throw new Error(`create answered ${made.status}: ${JSON.stringify(made.body)}`);
      const roomId = made.body.room.roomId as string;
      const join = async (leader: string, party: readonly string[]) => {
        const response = await platform.call('POST', `/v1/rooms/${roomId}/join`, {
          token: tokenOf.get(leader)!,
          body: party.length > 0 ? { party: party.map((account) => tokenOf.get(account)!) } : {},
        });
        if (response.status === 200) return 'seated';
        if (response.body?.error?.code === 'ROOM_FULL') return 'full';
        return `${response.status} ${response.body?.error?.code ?? ''}`.trim();
      };
      rounds.push(
        await partyRaceRound(accounts, join, async () => {
          const item = await platform.storedRoom({ roomId, creatorToken: creator });
          const members = Object.keys(item.members as Record<string, unknown>);
          return {
            players: Number(item.players) - 1,
            maxPlayers: Number(item.maxPlayers) - 1,
            members: members.flatMap((name) => (racers.has(name) ? [racers.get(name)!] : [])),
          };
        }),
      );
      progress.add();
    }
  });
  return { ...totalOf(rounds), rounds: shape.rounds, slots };
}

/** Party sizes 1, 2, …, largest, 1, 2, … until `players` are in parties (the last one cut to fit). */
function partySizes(players: number, largest: number): number[] {
  const sizes: number[] = [];
  for (let left = players, next = 1; left > 0; next = (next % largest) + 1) {
    sizes.push(Math.min(next, left));
    left -= sizes[sizes.length - 1]!;
  }
  return sizes;
}

async function benchPartyMatchmaking(
  platform: BenchPlatform,
  options: GroupsOptions['matchmaking'],
): Promise<PartyMatchmakingFigures> {
  const { players, roomSize } = options;
  await platform.configureVersion(matchmakingVersion, roomSize);
  const tokens = await platform.tokens('groups-mm', players);
  const sizes = partySizes(players, options.largestParty);
  const parties: { accounts: string[]; tokens: string[] }[] = [];
  let next = 0;
  for (const size of sizes) {
    const indexes = Array.from({ length: size }, (_, i) => next + i);
    parties.push({ accounts: indexes.map((i) => `groups-mm-${i}`), tokens: indexes.map((i) => tokens[i]!) });
    next += size;
  }
  const roomOf = new Map<number, string>();
  const errorStatuses: Record<string, number> = {};
  await phase(`groups: ${players} players in ${parties.length} parties find-or-create`, parties.length, (progress) =>
    Promise.all(
      parties.map(async (party, p) => {
        // A client's retry after an answer it never got: with the same key it is the same
        // request, never a second seat for the party elsewhere.
        const idempotencyKey = randomUUID();
        for (let attempt = 0; attempt < 100; attempt++) {
          const response = await platform.call('POST', '/v1/matchmaking/join', {
            token: party.tokens[0]!,
            headers: { 'idempotency-key': idempotencyKey },
            body: {
              gameId: benchGame.gameId,
              version: matchmakingVersion,
              ...(party.tokens.length > 1 ? { party: party.tokens.slice(1) } : {}),
            },
          });
          if (response.status === 200 || response.status === 201 || response.status === 202) {
            roomOf.set(p, response.body.room.roomId as string);
            break;
          }
          const status = `${response.status} ${response.body?.error?.code ?? ''}`.trim();
          errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
          if (!retryable.has(response.status)) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        progress.add();
      }),
    ),
  );
  return judgeMatchmaking(platform, parties, roomOf, { players, roomSize, errorStatuses });
}

async function judgeMatchmaking(
  platform: BenchPlatform,
  parties: readonly { accounts: string[]; tokens: string[] }[],
  roomOf: ReadonlyMap<number, string>,
  run: { players: number; roomSize: number; errorStatuses: Record<string, number> },
): Promise<PartyMatchmakingFigures> {
  const held = new Map<string, { members: Set<string>; players: number; maxPlayers: number }>();
  for (const roomId of new Set(roomOf.values())) {
    const item = await platform.storedRoom({ roomId, creatorToken: '' });
    const members = new Set(Object.keys(item.members as Record<string, unknown>));
    held.set(roomId, { members, players: Number(item.players), maxPlayers: Number(item.maxPlayers) });
  }
  let splitParties = 0;
  let placed = 0;
  parties.forEach((party, p) => {
    const roomId = roomOf.get(p);
    const room = roomId === undefined ? undefined : held.get(roomId);
    const inRoom = room ? party.accounts.filter((account) => room.members.has(account)).length : 0;
    if (room && inRoom !== party.accounts.length) splitParties++;
    if (room) placed += inRoom;
  });
  const occupancy: Record<number, number> = {};
  let overfill = 0;
  let seatsHeld = 0;
  for (const room of held.values()) {
    seatsHeld += room.players;
    occupancy[room.players] = (occupancy[room.players] ?? 0) + 1;
    overfill += Math.max(0, room.players - room.maxPlayers) + Math.abs(room.members.size - room.players);
  }
  return {
    players: run.players,
    parties: parties.length,
    roomSize: run.roomSize,
    roomsCreated: held.size,
    idealRooms: Math.ceil(run.players / run.roomSize),
    splitParties,
    overfill,
    placed,
    seatsHeld,
    occupancy,
    errorStatuses: run.errorStatuses,
  };
}

export function summarizeGroups(result: GroupsResult): ScenarioSummary {
  const { race, shape, matchmaking: mm } = result;
  const roomsRatio = ratio(mm.roomsCreated, mm.idealRooms);
  const others = Object.keys(race.others).length > 0 ? `   other answers ${JSON.stringify(race.others)}` : '';
  const errors =
    Object.keys(mm.errorStatuses).length > 0 ? `   answers retried or refused ${JSON.stringify(mm.errorStatuses)}` : '';
  return {
    id: 'groups',
    title: 'Groups: party joins',
    lines: [
      `party race: ${shape.parties} parties of ${shape.partySize} and ${shape.solos} solo players for ${race.slots} slots, all at once, × ${race.rounds}`,
      `  split parties ${race.splitParties}   over-fill ${race.overfill}   slots left free ${race.unfilled}   untrue answers ${race.untrue}${others}`,
      `  seated: ${race.seatedParties} parties, ${race.seatedSolos} solo players over all rounds`,
      `party matchmaking: ${mm.players} players in ${mm.parties} parties of 1–5, rooms of ${mm.roomSize}`,
      `  placed ${mm.placed}/${mm.players}   rooms ${mm.roomsCreated} (ideal ${mm.idealRooms}) = ${formatRatio(roomsRatio)} of ideal   split parties ${mm.splitParties}   over-fill ${mm.overfill}`,
      `  seats held ${mm.seatsHeld} (fewest rooms for them ${Math.ceil(mm.seatsHeld / mm.roomSize)})   rooms by players held ${JSON.stringify(mm.occupancy)}${errors}`,
    ],
    rows: [
      {
        scenario: `party race × ${race.rounds}: split parties + over-fill + free slots`,
        figure: `${race.splitParties} split, ${race.overfill} over, ${race.unfilled} free, ${race.untrue} untrue`,
        baseline: 'none of each',
        ratio: race.splitParties + race.overfill + race.unfilled + race.untrue,
        target: { kind: 'atMost', value: 0 },
        reading: '0 = every round all or none, never over-filled, full',
      },
      {
        scenario: `party matchmaking, ${mm.players} players in parties of 1–5, rooms of ${mm.roomSize}`,
        figure: `${mm.roomsCreated} rooms (ideal ${mm.idealRooms}), ${mm.splitParties} split, over-fill ${mm.overfill}`,
        baseline: 'rooms created ÷ ideal',
        ratio: roomsRatio,
        target: { kind: 'atMost', value: 1.1 },
        reading: '1 = perfectly packed',
      },
    ],
    charts: [],
  };
}
