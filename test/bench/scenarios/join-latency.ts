import type { Baselines } from '../baselines';
import { roomSize, type BenchPlatform } from '../bench-platform';
import { phase } from '../progress';
import { meets, pairwiseSum, perSecond, ratio, summarize, type LatencySummary, type Target } from '../stats';

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
