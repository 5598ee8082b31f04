import { redisServerAvailable, startPeer } from '../peer/processes';
import {
  peerHotRoom,
  peerJoinLatency,
  peerStampede,
  type PeerHotRoom,
  type PeerJoinLatency,
  type PeerStampede,
} from '../peer/scenarios';
import { describeLatency, formatMs, formatRatio, ratio } from '../stats';
import type { BarChart, HeadlineRow, ScenarioSummary } from '../summary';
import type { StampedeFigures } from './stampede';

/** Roomkeeper's figures from the same run, which the peer's are divided into. */
export interface OurFigures {
  readonly hotRoomJoinsPerSecond?: Readonly<Record<number, number>>;
  readonly joinP50Ms?: number;
  readonly stampede?: StampedeFigures;
}

export interface PeerModeResult {
  readonly mode: 'redis' | 'memory';
  readonly processes: number;
  readonly hotRoom: readonly PeerHotRoom[];
  readonly join: PeerJoinLatency;
  readonly stampede: PeerStampede;
}

/** A peer deployment this machine could not run, and why: reported as not measured. */
export interface PeerSkipped {
  readonly mode: 'redis' | 'memory';
  readonly processes: number;
  readonly reason: string;
}

export interface PeerResult {
  readonly scenario: 'peer';
  readonly modes: readonly PeerModeResult[];
  /** Absent in reports written before a deployment could be skipped. */
  readonly skipped?: readonly PeerSkipped[];
  readonly ours: OurFigures;
}

export interface PeerOptions {
  readonly hotRoomPlayers: readonly number[];
  readonly hotRoomRooms: number;
  readonly joins: number;
  readonly stampede: { readonly players: number; readonly roomSize: number };
}

/**
 * The peer deployments to run on this machine: Colyseus on Redis needs Debian's
 * `redis-server`; without it that comparison is skipped (and reported as not measured), not
 * the whole bench stopped. In memory needs nothing.
 */
export function peerPlan(redisAvailable: boolean): {
  readonly run: readonly (readonly ['redis' | 'memory', number])[];
  readonly skipped: readonly PeerSkipped[];
} {
  const redis = ['redis', 2] as const;
  const memory = ['memory', 1] as const;
  if (redisAvailable) return { run: [redis, memory], skipped: [] };
  return {
    run: [memory],
    skipped: [
      {
        mode: 'redis',
        processes: 2,
        reason: 'redis-server is not installed (apt-get install redis-server)',
      },
    ],
  };
}

/**
 * Colyseus 0.18 through the same scenarios: scaled out the documented way (two processes
 * sharing Redis through its Redis driver and presence), and as one in-memory process, the
 * ceiling of a matchmaker that keeps nothing durable.
 */
export async function benchPeer(
  options: PeerOptions,
  ours: OurFigures,
  redisAvailable: boolean = redisServerAvailable(),
): Promise<PeerResult> {
  const plan = peerPlan(redisAvailable);
  for (const skip of plan.skipped)
    process.stderr.write(`peer: ${modeName(skip)} is not measured: ${skip.reason}; the other comparisons run\n`);
  const modes: PeerModeResult[] = [];
  for (const [mode, processes] of plan.run) {
    const peer = await startPeer(mode, processes);
    try {
      const hotRoom: PeerHotRoom[] = [];
      for (const players of options.hotRoomPlayers)
        hotRoom.push(await peerHotRoom(peer, players, options.hotRoomRooms));
      const join = await peerJoinLatency(peer, options.joins);
      const stampede = await peerStampede(peer, options.stampede.players, options.stampede.roomSize);
      modes.push({ mode, processes, hotRoom, join, stampede });
    } finally {
      await peer.stop();
    }
  }
  return { scenario: 'peer', modes, skipped: plan.skipped, ours };
}

const modeName = (m: Pick<PeerModeResult, 'mode' | 'processes'>) =>
  m.mode === 'redis' ? `Colyseus on Redis (${m.processes} processes)` : 'Colyseus in memory (1 process)';

/** Rows of "ours ÷ theirs" for each figure both sides have. */
export function peerComparisons(result: PeerResult): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  const { ours } = result;
  for (const m of result.modes) {
    const name = modeName(m);
    for (const h of m.hotRoom) {
      const mine = ours.hotRoomJoinsPerSecond?.[h.players];
      if (mine !== undefined)
        rows.push({
          scenario: `vs ${name}: hot room, ${h.players} players`,
          figure: `${mine.toFixed(0)} joins/s`,
          baseline: `${h.joinsPerSecond.toFixed(0)} seats/s, over-fill ${h.overfill}`,
          ratio: ratio(mine, h.joinsPerSecond),
          reading: 'ours ÷ theirs, higher is better',
        });
    }
    if (ours.joinP50Ms !== undefined)
      rows.push({
        scenario: `vs ${name}: sequential join`,
        figure: `p50 ${formatMs(ours.joinP50Ms)}`,
        baseline: `p50 ${formatMs(m.join.join.p50)}`,
        ratio: ratio(ours.joinP50Ms, m.join.join.p50),
        reading: 'ours ÷ theirs, lower is better',
      });
    if (ours.stampede && ours.stampede.players === m.stampede.players) {
      rows.push(
        {
          scenario: `vs ${name}: stampede rooms created`,
          figure: `${ours.stampede.roomsCreated} rooms (ideal ${ours.stampede.idealRooms}), over-fill ${ours.stampede.overfill}`,
          baseline: `${m.stampede.roomsCreated} rooms, over-fill ${m.stampede.overfill}`,
          ratio: ratio(ours.stampede.roomsCreated, m.stampede.roomsCreated),
          reading: 'ours ÷ theirs, lower is better',
        },
        {
          // 0 ÷ 0 has no ratio (n/a): the counts themselves are the comparison, and both must be 0.
          scenario: `vs ${name}: stampede over-fill`,
          figure: `${ours.stampede.overfill} seats beyond capacity`,
          baseline: `${m.stampede.overfill} seats beyond capacity (server-side ${m.stampede.serverOverfill}, seats held ${m.stampede.clientOverfill})`,
          ratio: ratio(ours.stampede.overfill, m.stampede.overfill),
          reading: 'ours ÷ theirs; both must be 0',
        },
        {
          scenario: `vs ${name}: stampede time to place`,
          figure: formatMs(ours.stampede.timeToPlaceMs),
          baseline: formatMs(m.stampede.timeToPlaceMs),
          ratio: ratio(ours.stampede.timeToPlaceMs, m.stampede.timeToPlaceMs),
          reading: 'ours ÷ theirs, lower is better; ours starts a game server per room, theirs none',
        },
      );
    }
  }
  for (const skip of result.skipped ?? [])
    rows.push({
      scenario: `vs ${modeName(skip)}`,
      figure: '—',
      baseline: `not measured: ${skip.reason}`,
      ratio: Number.NaN,
      reading: 'not measured on this machine',
    });
  return rows;
}

/** Ours beside the peer's, for each figure this run has of ours. */
function peerCharts(result: PeerResult): BarChart[] {
  const ours = result.ours;
  return [
    ...(ours.hotRoomJoinsPerSecond
      ? Object.entries(ours.hotRoomJoinsPerSecond).map(([players, mine]) => ({
          id: `peer-hot-room-${players}`,
          title: `Hot room, ${players} players: joins/s, Roomkeeper vs Colyseus (same run)`,
          unit: '/s',
          bars: [
            { label: 'Roomkeeper (DynamoDB, durable)', value: mine, series: 'roomkeeper' as const },
            ...result.modes.map((m) => ({
              label: modeName(m),
              value: m.hotRoom.find((h) => h.players === Number(players))?.joinsPerSecond ?? Number.NaN,
              series: 'peer' as const,
            })),
          ],
        }))
      : []),
    ...(ours.joinP50Ms !== undefined
      ? [
          {
            id: 'peer-join',
            title: 'Sequential join p50, Roomkeeper vs Colyseus (same run)',
            unit: 'ms',
            bars: [
              { label: 'Roomkeeper', value: ours.joinP50Ms, series: 'roomkeeper' as const },
              ...result.modes.map((m) => ({ label: modeName(m), value: m.join.join.p50, series: 'peer' as const })),
            ],
          },
        ]
      : []),
    ...(ours.stampede
      ? [
          {
            id: 'peer-stampede-rooms',
            title: `Stampede of ${ours.stampede.players} into rooms of ${ours.stampede.roomSize}: rooms created (ideal ${ours.stampede.idealRooms}, same run)`,
            unit: 'rooms',
            marker: { label: 'ideal', value: ours.stampede.idealRooms },
            bars: [
              { label: 'Roomkeeper', value: ours.stampede.roomsCreated, series: 'roomkeeper' as const },
              ...result.modes.map((m) => ({
                label: modeName(m),
                value: m.stampede.players === ours.stampede?.players ? m.stampede.roomsCreated : Number.NaN,
                series: 'peer' as const,
              })),
            ],
          },
          {
            id: 'peer-stampede',
            title: `Stampede of ${ours.stampede.players}: time until all are placed (same run)`,
            unit: 'ms',
            bars: [
              {
                label: 'Roomkeeper (starts a server per room)',
                value: ours.stampede.timeToPlaceMs,
                series: 'roomkeeper' as const,
              },
              ...result.modes.map((m) => ({
                label: modeName(m),
                value: m.stampede.players === ours.stampede?.players ? m.stampede.timeToPlaceMs : Number.NaN,
                series: 'peer' as const,
              })),
            ],
          },
        ]
      : []),
  ];
}

export function summarizePeer(result: PeerResult): ScenarioSummary {
  const lines = ['peer: Colyseus 0.18 (@colyseus/core + ws-transport), clients through @colyseus/sdk'];
  for (const m of result.modes) {
    lines.push(`  ${modeName(m)}`);
    for (const h of m.hotRoom)
      lines.push(
        `    hot room ${String(h.players).padStart(3)} players      ${h.joinsPerSecond.toFixed(0)} seats/s (${h.seats} in ${(h.elapsedMs / 1000).toFixed(2)} s)   ${describeLatency(h.join)}   over-fill ${h.overfill} (server-side ${h.serverOverfill}, seats held ${h.clientOverfill})   errors ${h.errors}`,
      );
    lines.push(
      `    sequential join            ${m.join.joinsPerSecond.toFixed(0)} joins/s   ${describeLatency(m.join.join)}   errors ${m.join.errors}`,
      `    stampede ${m.stampede.players} players      ${m.stampede.roomsCreated} rooms (ideal ${m.stampede.idealRooms}), all placed in ${formatMs(m.stampede.timeToPlaceMs)} (${m.stampede.placedPerSecond.toFixed(0)} players/s)   ${describeLatency(m.stampede.place)}   over-fill ${m.stampede.overfill} (server-side ${m.stampede.serverOverfill}, seats held ${m.stampede.clientOverfill})   errors ${m.stampede.errors}`,
    );
  }
  for (const skip of result.skipped ?? []) lines.push(`  ${modeName(skip)}: not measured: ${skip.reason}`);
  const rows = peerComparisons(result);
  for (const row of rows) lines.push(`  RATIO ${row.scenario}: ${formatRatio(row.ratio)} (${row.reading})`);
  return { id: 'peer', title: 'Peer: Colyseus 0.18', lines, rows, charts: peerCharts(result) };
}
