import type { Baselines } from '../baselines';
import { roomSize, type BenchPlatform } from '../bench-platform';
import { phase } from '../progress';
import {
  describeErrors,
  describeLatency,
  describeTarget,
  formatMs,
  formatRatio,
  meets,
  pairwiseSum,
  perSecond,
  ratio,
  summarize,
  verdict,
  type LatencySummary,
  type Target,
} from '../stats';
import type { ScenarioSummary } from '../summary';

export const joinLatencyTarget: Target = { kind: 'atMost', value: 2.0 };

export interface JoinLatencyResult {
  readonly scenario: 'join';
  readonly joins: number;
  readonly rooms: number;
  readonly join: LatencySummary;
  /** Successful sequential joins per second of time spent in joins. */
  readonly throughputPerSecond: number;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
  readonly baseline: { readonly update: LatencySummary; readonly echo: LatencySummary; readonly sum: LatencySummary };
  /** join p50 ÷ (UpdateItem + HTTP echo) p50. */
  readonly ratio: number;
  readonly target: Target;
  readonly meetsTarget: boolean;
}

/**
 * Sequential joins over HTTP into rooms of 100 filled one after another, each interleaved
 * with one baseline round (a conditional UpdateItem, then a loopback HTTP echo), the order
 * alternating so neither side always runs right after the other. Room creation and the
 * stopping of full rooms' servers happen between rooms and are not timed.
 */
export async function benchJoinLatency(
  platform: BenchPlatform,
  baselines: Baselines,
  samples: number,
): Promise<JoinLatencyResult> {
  const slotsPerRoom = roomSize - 1; // the creator holds the first slot
  const roomCount = Math.ceil(samples / slotsPerRoom);
  const tokens = await phase('join: player tokens', samples, async (progress) => {
    const minted = await platform.tokens('join', samples);
    progress.add(minted.length);
    return minted;
  });
  const joins: number[] = [];
  const updates: number[] = [];
  const echoes: number[] = [];
  const errorStatuses: Record<string, number> = {};
  let errors = 0;
  let joinTimeMs = 0;

  await phase('join: sequential joins', samples, async (progress) => {
    for (let r = 0; r < roomCount; r++) {
      const room = await platform.createRoom();
      const end = Math.min(samples, (r + 1) * slotsPerRoom);
      for (let i = r * slotsPerRoom; i < end; i++) {
        const baselineRound = async () => {
          updates.push(await baselines.update());
          echoes.push(await baselines.echo());
        };
        if (i % 2 === 0) await baselineRound();
        const started = performance.now();
        const response = await platform.call('POST', `/v1/rooms/${room.roomId}/join`, { token: tokens[i] });
        const elapsed = performance.now() - started;
        joinTimeMs += elapsed;
        if (response.status === 200) joins.push(elapsed);
        else {
          errors++;
          const status = `${response.status} ${response.body?.error?.code ?? ''}`.trim();
          errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
        }
        if (i % 2 === 1) await baselineRound();
        progress.add();
      }
      await platform.releaseRooms();
    }
  });

  const join = summarize(joins);
  const sum = summarize(pairwiseSum(updates, echoes));
  const value = ratio(join.p50, sum.p50);
  return {
    scenario: 'join',
    joins: samples,
    rooms: roomCount,
    join,
    throughputPerSecond: perSecond(joins.length, joinTimeMs),
    errors,
    errorStatuses,
    baseline: { update: summarize(updates), echo: summarize(echoes), sum },
    ratio: value,
    target: joinLatencyTarget,
    meetsTarget: meets(value, joinLatencyTarget),
  };
}

export function summarizeJoinLatency(result: JoinLatencyResult): ScenarioSummary {
  return {
    id: 'join',
    title: 'Join latency',
    lines: [
      `join latency: ${result.joins} sequential joins over HTTP, rooms of 100 filled one after another (${result.rooms} rooms)`,
      `  POST /v1/rooms/{id}/join       ${describeLatency(result.join)}   ${result.throughputPerSecond.toFixed(0)} joins/s   errors ${describeErrors(result.errors, result.errorStatuses)}`,
      `  conditional UpdateItem         ${describeLatency(result.baseline.update)}`,
      `  loopback HTTP echo             ${describeLatency(result.baseline.echo)}`,
      `  UpdateItem + echo (baseline)   ${describeLatency(result.baseline.sum)}   (interleaved, same run)`,
      `  RATIO join p50 / baseline p50  ${formatRatio(result.ratio)}   target ${describeTarget(result.target)}   ${verdict(result.meetsTarget)}`,
    ],
    rows: [
      {
        scenario: 'join latency',
        figure: `p50 ${formatMs(result.join.p50)}`,
        baseline: `UpdateItem + echo p50 ${formatMs(result.baseline.sum.p50)}`,
        ratio: result.ratio,
        target: result.target,
        reading: 'lower is better',
      },
    ],
    charts: [
      {
        id: 'join-latency',
        title: 'Sequential join latency vs its raw parts (same run)',
        unit: 'ms',
        marker: {
          label: `target: ${describeTarget(result.target)} × baseline p50`,
          value: result.target.value * result.baseline.sum.p50,
        },
        bars: [
          { label: 'join p50', value: result.join.p50, series: 'roomkeeper' },
          { label: 'join p90', value: result.join.p90, series: 'roomkeeper' },
          { label: 'join p99', value: result.join.p99, series: 'roomkeeper' },
          { label: 'UpdateItem + echo p50', value: result.baseline.sum.p50, series: 'baseline' },
          { label: 'UpdateItem + echo p90', value: result.baseline.sum.p90, series: 'baseline' },
          { label: 'UpdateItem + echo p99', value: result.baseline.sum.p99, series: 'baseline' },
        ],
      },
    ],
  };
}
