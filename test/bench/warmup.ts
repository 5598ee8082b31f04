import type { Baselines } from './baselines';
import type { BenchPlatform, BenchRoom } from './bench-platform';
import { phase } from './progress';
import { formatMs, median } from './stats';

export interface WarmupResult {
  readonly durationMs: number;
  readonly operations: number;
  /** Raw UpdateItem p50 in each second of the warm-up: it should fall and then level off. */
  readonly updateP50BySecond: number[];
}

/**
 * DynamoDB Local is a JVM: its p50 falls about tenfold over the first seconds of load. A few
 * seconds of mixed load (raw updates, echoes, joins, room reads, sequential and 8 at a time)
 * warm every path the scenarios time, so the first scenario is not measured cold.
 */
export async function warmUp(platform: BenchPlatform, baselines: Baselines, durationMs: number): Promise<WarmupResult> {
  const tokens = await phase('warm-up tokens', 600, async (progress) => {
    const minted = await platform.tokens('warm', 600);
    progress.add(minted.length);
    return minted;
  });
  let room: BenchRoom = await platform.createRoom();
  let replacing: Promise<void> | undefined;
  let nextToken = 0;
  const join = async () => {
    const full = room;
    const token = tokens[nextToken++ % tokens.length] as string;
    const response = await platform.call('POST', `/v1/rooms/${full.roomId}/join`, { token });
    // A full warm-up room is replaced once; joins that hit it still warmed the path.
    if (response.status === 409 && response.body?.error?.code === 'ROOM_FULL' && room === full) {
      replacing ??= platform.createRoom().then((fresh) => {
        room = fresh;
        replacing = undefined;
      });
      await replacing;
    }
  };
  const read = () => platform.call('GET', `/v1/rooms/${room.roomId}`, { token: room.creatorToken });

  const bySecond: number[][] = [];
  let operations = 0;
  const started = performance.now();
  const until = started + durationMs;
  await phase('warm-up (mixed load)', undefined, async (progress) => {
    const loop = async (worker: number, deadline: number) => {
      for (let i = worker; performance.now() < deadline; i++) {
        const kind = i % 4;
        if (kind === 0) {
          const ms = await baselines.update();
          const second = Math.floor((performance.now() - started) / 1000);
          (bySecond[second] ??= []).push(ms);
          progress.note(`UpdateItem p50 this second ${formatMs(median(bySecond[second]))}`);
        } else if (kind === 1) await baselines.echo();
        else if (kind === 2) await join();
        else await read();
        operations++;
        progress.add();
      }
    };
    // Half the time one caller at a time (latency paths), half eight at once (contention paths).
    await loop(0, started + durationMs / 2);
    await Promise.all(Array.from({ length: 8 }, (_, worker) => loop(worker, until)));
  });
  await platform.releaseRooms();
  return {
    durationMs: performance.now() - started,
    operations,
    updateP50BySecond: bySecond.map((samples) => median(samples ?? [])),
  };
}
