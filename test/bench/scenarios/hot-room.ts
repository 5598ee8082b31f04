import type { Baselines, RateSample } from '../baselines';
import { roomSize, type BenchPlatform, type BenchRoom } from '../bench-platform';
import { judgeExactness, type Exactness, type RoomCheck } from '../exactness';
import { phase } from '../progress';
import {
  describeErrors,
  describeLatency,
  describeTarget,
  formatRatio,
  meets,
  perSecond,
  ratio,
  summarize,
  verdict,
  type LatencySummary,
  type Target,
} from '../stats';
import type { ScenarioSummary } from '../summary';

/** Joins through the API reach this share of the claim alone (the same write, no API), same run. */
export const hotRoomTarget: Target = { kind: 'atLeast', value: 0.8 };

export interface HotRoomResult {
  readonly scenario: 'hot-room';
  readonly players: number;
  readonly rooms: number;
  readonly joins: number;
  /** From the start to the last successful join: the time the rooms took to fill. */
  readonly elapsedMs: number;
  /** Until every player had its answer (the last room's late ROOM_FULL answers included). */
  readonly drainedMs: number;
  readonly joinsPerSecond: number;
  readonly join: LatencySummary;
  /** 409 ROOM_FULL answers: expected at each room's end, when players move to the next room. */
  readonly fullAnswers: number;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
  /** Raw conditional updates/s on one small item from as many concurrent callers, before and after. */
  readonly baseline: { readonly before: RateSample; readonly after: RateSample; readonly perSecond: number };
  /** joins/s ÷ the claim alone's claims/s (`documentFill.sample`): the share of the write's own rate the API keeps. */
  readonly ratio: number;
  readonly target: Target;
  readonly meetsTarget: boolean;
  readonly exactness: Exactness;
  /**
   * Where the time goes: CPU this process (bench client, API and handlers: one event loop)
   * spent while the rooms filled, per successful join and as a share of one core. Near 100 %
   * the join path is bound by this process's CPU, not by DynamoDB Local.
   */
  readonly processCpu: { readonly msPerJoin: number; readonly shareOfOneCore: number };
  /**
   * The join's write alone (`Baselines.documentFill`): as many callers filling as many rooms
   * with the claim itself, no API. `ratio`: its rate ÷ the raw updates/s, the most any API
   * could reach here.
   */
  readonly documentFill: { readonly sample: RateSample; readonly ratio: number };
}

/** Past this the run is stuck (e.g. a platform answering errors forever): stop and report. */
const runDeadlineMs = 180_000;

interface Filling {
  readonly winners: readonly number[];
  readonly latencies: readonly number[];
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
  readonly fullAnswers: number;
  readonly elapsedMs: number;
  readonly drainedMs: number;
  /** This process's CPU time while the rooms filled. */
  readonly cpuMs: number;
}

/** `tokens.length - slots` concurrent players fill `rooms` one after another; see `benchHotRoom`. */
async function fillRooms(
  platform: BenchPlatform,
  label: string,
  rooms: readonly BenchRoom[],
  tokens: readonly string[],
  players: number,
): Promise<Filling> {
  const roomCount = rooms.length;
  const slotsPerRoom = roomSize - 1;
  const winners = new Array<number>(roomCount).fill(0);
  const latencies: number[] = [];
  const errorStatuses: Record<string, number> = {};
  let errors = 0;
  let fullAnswers = 0;
  let current = 0;
  let nextToken = 0;
  let lastSuccess = Number.NaN;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await phase(`${label}: joins`, roomCount * slotsPerRoom, async (progress) => {
    const player = async () => {
      let token: string | undefined;
      while (current < roomCount && performance.now() - started < runDeadlineMs) {
        token ??= tokens[nextToken++];
        if (token === undefined) throw new Error('the bench ran out of player tokens');
        const r = current;
        const t = performance.now();
        const response = await platform.call('POST', `/v1/rooms/${(rooms[r] as BenchRoom).roomId}/join`, { token });
        if (response.status === 200) {
          lastSuccess = performance.now();
          latencies.push(lastSuccess - t);
          winners[r] = (winners[r] as number) + 1;
          token = undefined; // this account now holds a slot; the next join is a new player
          progress.add();
        } else if (response.status === 409 && response.body?.error?.code === 'ROOM_FULL') {
          fullAnswers++;
          if (current === r) current++;
        } else {
          errors++;
          const status = `${response.status} ${response.body?.error?.code ?? ''}`.trim();
          errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: players }, player));
  });
  const drainedMs = performance.now() - started;
  const elapsedMs = lastSuccess - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;

  return { winners, latencies, errors, errorStatuses, fullAnswers, elapsedMs, drainedMs, cpuMs };
}

/** The rooms (created, ready) and a fresh account per slot, plus one spare per player. */
async function prepare(platform: BenchPlatform, label: string, players: number, roomCount: number) {
  const rooms: BenchRoom[] = await phase(`${label}: create rooms`, roomCount, async (progress) => {
    const created: BenchRoom[] = [];
    for (let r = 0; r < roomCount; r++) {
      created.push(await platform.createRoom());
      progress.add();
    }
    return created;
  });
  // The spare is for the attempt that finds the last room full.
  const tokenCount = roomCount * (roomSize - 1) + players;
  const tokens = await phase(`${label}: player tokens`, tokenCount, async (progress) => {
    const minted = await platform.tokens(`hot${players}`, tokenCount);
    progress.add(minted.length);
    return minted;
  });
  return { rooms, tokens };
}

async function checkExactness(
  platform: BenchPlatform,
  label: string,
  rooms: readonly BenchRoom[],
  winners: readonly number[],
): Promise<Exactness> {
  return phase(`${label}: exactness`, rooms.length, async (progress) => {
    const checks: RoomCheck[] = [];
    for (const [r, room] of rooms.entries()) {
      const seen = await platform.occupancy(room);
      checks.push({ roomId: room.roomId, winners: winners[r] as number, ...seen });
      progress.add();
    }
    return judgeExactness(checks, roomSize - 1);
  });
}

/**
 * `players` concurrent players fill rooms of 100 one after another: each player joins the
 * current room with a fresh account until it answers ROOM_FULL, then everyone moves on to the
 * next. All rooms are created (and ready) before the clock starts. Compared with the claim
 * alone (`Baselines.documentFill`: the same write from as many callers, filling as many
 * rooms, no API), measured right after; the raw rate of conditional ADDs on one small item,
 * right before and right after, says what DynamoDB Local itself allows.
 */
export async function benchHotRoom(
  platform: BenchPlatform,
  baselines: Baselines,
  options: { players: number; rooms: number; baselineMs: number },
): Promise<HotRoomResult> {
  const { players, rooms: roomCount } = options;
  const label = `hot-room ${players}`;
  const { rooms, tokens } = await prepare(platform, label, players, roomCount);
  // What the claim alone fills: copies of a room as it stands before any join, its creator in it.
  const template = await platform.storedRoom(rooms[0] as BenchRoom);
  const rawRate = () =>
    phase(`${label}: raw conditional updates`, undefined, (progress) =>
      baselines.updateRate(players, options.baselineMs, () => progress.add()),
    );
  const before = await rawRate();
  const filled = await fillRooms(platform, label, rooms, tokens, players);
  const after = await rawRate();
  const fill = await phase(`${label}: the claim alone, no API`, roomCount * (roomSize - 1), (progress) =>
    baselines.documentFill(players, template, roomCount, () => progress.add()),
  );
  const exactness = await checkExactness(platform, label, rooms, filled.winners);
  await platform.releaseRooms();

  const joins = filled.latencies.length;
  const joinsPerSecond = perSecond(joins, filled.elapsedMs);
  const baselineRate = (before.perSecond + after.perSecond) / 2;
  const value = ratio(joinsPerSecond, fill.perSecond);
  return {
    scenario: 'hot-room',
    players,
    rooms: roomCount,
    joins,
    elapsedMs: filled.elapsedMs,
    drainedMs: filled.drainedMs,
    joinsPerSecond,
    join: summarize(filled.latencies),
    fullAnswers: filled.fullAnswers,
    errors: filled.errors,
    errorStatuses: filled.errorStatuses,
    baseline: { before, after, perSecond: baselineRate },
    ratio: value,
    target: hotRoomTarget,
    meetsTarget: meets(value, hotRoomTarget),
    exactness,
    processCpu: {
      msPerJoin: filled.cpuMs / Math.max(1, joins),
      shareOfOneCore: filled.cpuMs / filled.drainedMs,
    },
    documentFill: { sample: fill, ratio: ratio(fill.perSecond, baselineRate) },
  };
}

export function summarizeHotRoom(result: HotRoomResult): ScenarioSummary {
  const fill = result.documentFill;
  return {
    id: `hot-room-${result.players}`,
    title: `Hot room, ${result.players} players`,
    lines: [
      `hot room: ${result.players} concurrent players filling ${result.rooms} rooms of 100 one after another`,
      `  successful joins               ${result.joins} in ${(result.elapsedMs / 1000).toFixed(2)} s = ${result.joinsPerSecond.toFixed(0)} joins/s   ${describeLatency(result.join)}`,
      `  last answer (late ROOM_FULLs)  after ${(result.drainedMs / 1000).toFixed(2)} s`,
      `  ROOM_FULL at room ends         ${result.fullAnswers}   errors ${describeErrors(result.errors, result.errorStatuses)}`,
      `  raw conditional ADD, 1 item    ${result.baseline.perSecond.toFixed(0)} /s from ${result.players} callers (before ${result.baseline.before.perSecond.toFixed(0)}, after ${result.baseline.after.perSecond.toFixed(0)})`,
      `  this process's CPU while filling ${result.processCpu.msPerJoin.toFixed(2)} ms per join, ${(100 * result.processCpu.shareOfOneCore).toFixed(0)} % of one core (client + API + handlers)`,
      `  the claim alone, no API        ${fill.sample.perSecond.toFixed(0)} claims/s filling the same rooms (${formatRatio(fill.ratio)} of the raw updates/s)`,
      `  RATIO joins/s / claims/s       ${formatRatio(result.ratio)}   target ${describeTarget(result.target)}   ${verdict(result.meetsTarget)}`,
      `  exactness                      over-fill ${result.exactness.overfill}, ${result.exactness.exact ? 'every room: 99 winners for 99 free slots, players = 100 = members' : `NOT EXACT: ${result.exactness.problems.slice(0, 5).join('; ')}`}`,
    ],
    rows: [
      {
        scenario: `hot room, ${result.players} players`,
        figure: `${result.joinsPerSecond.toFixed(0)} joins/s, over-fill ${result.exactness.overfill}`,
        baseline: `the claim alone, no API: ${fill.sample.perSecond.toFixed(0)} claims/s`,
        ratio: result.ratio,
        target: result.target,
        reading: 'higher is better',
      },
    ],
    charts: [
      {
        id: `hot-room-${result.players}`,
        title: `Hot room, ${result.players} players: throughput vs the claim alone (same run)`,
        unit: '/s',
        marker: {
          label: `target: ${describeTarget(result.target)} × the claim alone`,
          value: result.target.value * fill.sample.perSecond,
        },
        bars: [
          { label: 'joins/s through the API', value: result.joinsPerSecond, series: 'roomkeeper' },
          { label: 'the claim alone, no API', value: fill.sample.perSecond, series: 'baseline' },
          { label: 'raw conditional updates, 1 small item', value: result.baseline.perSecond, series: 'baseline' },
        ],
      },
    ],
  };
}
