import type { Baselines } from '../baselines';
import { benchGame, type BenchPlatform } from '../bench-platform';
import { phase } from '../progress';
import {
  describeErrors,
  describeLatency,
  formatMs,
  formatRatio,
  ratio,
  summarize,
  type LatencySummary,
} from '../stats';
import type { ScenarioSummary } from '../summary';

/** What a stampede tells, whoever served it: the shape a peer's stampede is compared with. */
export interface StampedeFigures {
  readonly players: number;
  readonly roomSize: number;
  readonly roomsCreated: number;
  /** ceil(players ÷ room size): the fewest rooms that seat everyone. */
  readonly idealRooms: number;
  /** From the first request until the last player held a seat. */
  readonly timeToPlaceMs: number;
  /** Seats taken beyond capacity, summed over rooms: must be 0. */
  readonly overfill: number;
  readonly placed: number;
}

export interface StampedeResult extends StampedeFigures {
  readonly scenario: 'stampede';
  /** Each player's time from its first request to its seat, retries included. */
  readonly place: LatencySummary;
  /** Requests answered with something to retry (e.g. 503), or not answered at all, and tried again. */
  readonly retries: number;
  /** Answers that asked to retry, by status and code. */
  readonly retryStatuses: Record<string, number>;
  /** Requests that got no HTTP answer (the connection failed), by cause. */
  readonly transportErrors: Record<string, number>;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
  /** Rooms whose read-back count disagrees with its members map or the seats handed out. */
  readonly problems: readonly string[];
  /** The same number of single conditional updates sent at once, same run. */
  readonly baseline: { readonly elapsedMs: number; readonly errors: number };
  /** time to place ÷ the baseline's time. */
  readonly ratio: number;
}

export const stampedeVersion = '1.0.0-stampede';
/** Past this a player gives up: the run reports it as an error rather than hanging. */
const playerDeadlineMs = 120_000;
const retryable = new Set([429, 503]);

/** Rooms created ÷ the ideal, and seats beyond capacity, from what each room reads back. */
export function judgeStampede(
  seatsByRoom: ReadonlyMap<string, number>,
  readBack: ReadonlyMap<string, { players: number; maxPlayers: number; members: number | undefined }>,
  players: number,
  roomSize: number,
): { roomsCreated: number; idealRooms: number; overfill: number; problems: string[] } {
  const problems: string[] = [];
  let overfill = 0;
  for (const [roomId, seats] of seatsByRoom) {
    const room = readBack.get(roomId);
    if (!room) {
      problems.push(`${roomId}: not found when read back`);
      continue;
    }
    overfill += Math.max(0, room.players - room.maxPlayers, seats - room.maxPlayers);
    if (room.players !== seats) problems.push(`${roomId}: ${seats} seats handed out but ${room.players} players`);
    if (room.members !== undefined && room.members !== room.players)
      problems.push(`${roomId}: ${room.members} members but ${room.players} players`);
  }
  return { roomsCreated: seatsByRoom.size, idealRooms: Math.ceil(players / roomSize), overfill, problems };
}

/**
 * What the platform says is in each room the stampede filled. A platform still busy with the
 * stampede may ask to retry (503): the read is tried again.
 */
async function readRoomsBack(platform: BenchPlatform, tokenOfRoom: ReadonlyMap<string, string>) {
  return phase('stampede: read rooms back', tokenOfRoom.size, async (progress) => {
    const seen = new Map<string, { players: number; maxPlayers: number; members: number | undefined }>();
    for (const [roomId, token] of tokenOfRoom) {
      for (let attempt = 1; ; attempt++) {
        try {
          seen.set(roomId, await platform.occupancy({ roomId, creatorToken: token }));
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      progress.add();
    }
    return seen;
  });
}

/** What the stampede's players saw, filled in by each as it is placed. */
interface Placing {
  readonly seatsByRoom: Map<string, number>;
  readonly tokenOfRoom: Map<string, string>;
  readonly placeTimes: number[];
  readonly errorStatuses: Record<string, number>;
  readonly transportErrors: Record<string, number>;
  readonly retryStatuses: Record<string, number>;
  errors: number;
  retries: number;
  lastPlaced: number;
}

function newPlacing(): Placing {
  return {
    seatsByRoom: new Map(),
    tokenOfRoom: new Map(),
    placeTimes: [],
    errorStatuses: {},
    transportErrors: {},
    retryStatuses: {},
    errors: 0,
    retries: 0,
    lastPlaced: Number.NaN,
  };
}

/** One player's find-or-create, tried again (as a client would) on a retryable answer or none. */
async function placePlayer(
  platform: BenchPlatform,
  version: string,
  token: string,
  placing: Placing,
  placed: () => void,
): Promise<void> {
  const mine = performance.now();
  while (performance.now() - mine < playerDeadlineMs) {
    let response;
    try {
      response = await platform.call('POST', '/v1/matchmaking/join', {
        token,
        body: { gameId: benchGame.gameId, version },
      });
    } catch (error) {
      // No HTTP answer at all (the connection failed): counted, and tried again.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const key = `no answer: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
      placing.transportErrors[key] = (placing.transportErrors[key] ?? 0) + 1;
      placing.retries++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    if (response.status === 200 || response.status === 201 || response.status === 202) {
      const roomId = response.body.room.roomId as string;
      placing.seatsByRoom.set(roomId, (placing.seatsByRoom.get(roomId) ?? 0) + 1);
      placing.tokenOfRoom.set(roomId, token);
      placing.lastPlaced = performance.now();
      placing.placeTimes.push(placing.lastPlaced - mine);
      placed();
      return;
    }
    const status = `${response.status} ${response.body?.error?.code ?? ''}`.trim();
    if (retryable.has(response.status)) {
      placing.retries++;
      placing.retryStatuses[status] = (placing.retryStatuses[status] ?? 0) + 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    placing.errors++;
    placing.errorStatuses[status] = (placing.errorStatuses[status] ?? 0) + 1;
    return;
  }
  placing.errors++;
  placing.errorStatuses.deadline = (placing.errorStatuses.deadline ?? 0) + 1;
}

/**
 * `players` fresh accounts call find-or-create at the same moment for a game whose rooms
 * hold `roomSize`. Every room a player lands in was made by the stampede itself (a version
 * of the bench game no one else plays), so the rooms seen are the rooms created.
 */
export async function benchStampede(
  platform: BenchPlatform,
  baselines: Baselines,
  options: { players: number; roomSize: number },
): Promise<StampedeResult> {
  const { players, roomSize } = options;
  const version = `${stampedeVersion}-${players}`;
  await platform.configureVersion(version, roomSize);
  const tokens = await phase('stampede: player tokens', players, async (progress) => {
    const minted = await platform.tokens(`stampede${players}`, players);
    progress.add(minted.length);
    return minted;
  });
  const baseline = await baselines.updateBurst(players);

  const placing = newPlacing();
  const started = performance.now();
  await phase(`stampede: ${players} players find-or-create`, players, async (progress) => {
    await Promise.all(tokens.map((token) => placePlayer(platform, version, token, placing, () => progress.add())));
  });
  const { seatsByRoom, tokenOfRoom, placeTimes, errorStatuses, transportErrors, retryStatuses } = placing;
  const { errors, retries, lastPlaced } = placing;
  const timeToPlaceMs = lastPlaced - started;

  const readBack = await readRoomsBack(platform, tokenOfRoom);
  await platform.releaseRooms();
  const judged = judgeStampede(seatsByRoom, readBack, players, roomSize);
  return {
    scenario: 'stampede',
    players,
    roomSize,
    ...judged,
    timeToPlaceMs,
    placed: placeTimes.length,
    place: summarize(placeTimes),
    retries,
    transportErrors,
    retryStatuses,
    errors,
    errorStatuses,
    baseline,
    ratio: ratio(timeToPlaceMs, baseline.elapsedMs),
  };
}

export function summarizeStampede(result: StampedeResult): ScenarioSummary {
  const roomsRatio = ratio(result.roomsCreated, result.idealRooms);
  return {
    id: 'stampede',
    title: `Find-or-create stampede, ${result.players} players, rooms of ${result.roomSize}`,
    lines: [
      `find-or-create stampede: ${result.players} players at once, rooms of ${result.roomSize}`,
      `  placed                         ${result.placed}/${result.players} in ${formatMs(result.timeToPlaceMs)}   each: ${describeLatency(result.place)}`,
      `  rooms created                  ${result.roomsCreated} (ideal ${result.idealRooms}) = ${formatRatio(roomsRatio)} of ideal`,
      `  over-fill                      ${result.overfill}${result.problems.length > 0 ? `   PROBLEMS: ${result.problems.slice(0, 5).join('; ')}` : ''}`,
      `  retries                        ${result.retries}${result.retries > 0 ? ` ${JSON.stringify({ ...result.retryStatuses, ...result.transportErrors })}` : ''}   errors ${describeErrors(result.errors, result.errorStatuses)}`,
      `  ${result.players} single conditional updates at once: ${formatMs(result.baseline.elapsedMs)} (baseline, same run)`,
      `  RATIO time to place / baseline ${formatRatio(result.ratio)}`,
    ],
    rows: [
      {
        // Packing is only meaningful for the players who got a seat: a run that seats few
        // creates few rooms, and must not read as a success.
        scenario: `stampede: players placed`,
        figure: `${result.placed}/${result.players} within ${formatMs(playerDeadlineMs)} each`,
        baseline: 'every player',
        ratio: ratio(result.placed, result.players),
        target: { kind: 'atLeast', value: 1 },
        reading: '1 = every player seated',
      },
      {
        scenario: `stampede, ${result.players} players, rooms of ${result.roomSize}`,
        figure: `${result.roomsCreated} rooms (ideal ${result.idealRooms}), over-fill ${result.overfill}`,
        baseline: 'rooms created ÷ ideal',
        ratio: roomsRatio,
        target: { kind: 'atMost', value: 1 },
        reading: '1 = perfectly packed',
      },
      {
        scenario: `stampede: time to place all`,
        figure: formatMs(result.timeToPlaceMs),
        baseline: `${result.players} conditional updates at once: ${formatMs(result.baseline.elapsedMs)}`,
        ratio: result.ratio,
        reading: 'lower is better; includes starting every room’s game server',
      },
    ],
    charts: [
      {
        id: 'stampede-time',
        title: `Stampede: ${result.players} players placed vs ${result.players} raw writes`,
        unit: 'ms',
        bars: [
          { label: 'all players placed', value: result.timeToPlaceMs, series: 'roomkeeper' },
          { label: 'one player placed, p50', value: result.place.p50, series: 'roomkeeper' },
          { label: 'one player placed, p99', value: result.place.p99, series: 'roomkeeper' },
          {
            label: `${result.players} conditional updates at once`,
            value: result.baseline.elapsedMs,
            series: 'baseline',
          },
        ],
      },
    ],
  };
}
