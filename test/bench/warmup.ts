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

/** Callers at once: enough to load the JVM, below DynamoDB Local's accept backlog (50). */
const concurrency = 8;

/**
 * DynamoDB Local is a JVM: its p50 falls about tenfold over the first seconds of load. A few
 * seconds of mixed load (raw updates, echoes, joins, room reads) warm every path the
 * scenarios time, so the first scenario is not measured cold. The load runs for at least
 * `durationMs` and goes on (up to twice that) while the raw UpdateItem is still getting faster.
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
  const p50Of = (second: number) => median(bySecond[second] ?? []);
  let operations = 0;
  const started = performance.now();
  const second = () => Math.floor((performance.now() - started) / 1000);
  // Still warming: this second's UpdateItem p50 clearly better than the last one's.
  const improving = () => second() >= 2 && p50Of(second() - 1) < 0.8 * p50Of(second() - 2);
  const longest = durationMs * 2;
  await phase('warm-up (mixed load)', undefined, async (progress) => {
    const worker = async (offset: number) => {
      for (let i = offset; ; i++) {
        const elapsed = performance.now() - started;
        if (elapsed >= longest || (elapsed >= durationMs && !improving())) return;
        const kind = i % 4;
        if (kind === 0) {
          const ms = await baselines.update();
          (bySecond[second()] ??= []).push(ms);
          progress.note(`UpdateItem p50 this second ${formatMs(p50Of(second()))}`);
        } else if (kind === 1) await baselines.echo();
        else if (kind === 2) await join();
        else await read();
        operations++;
        progress.add();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, offset) => worker(offset)));
  });
  await platform.releaseRooms();
  return {
    durationMs: performance.now() - started,
    operations,
    updateP50BySecond: Array.from(bySecond, (samples) => median(samples ?? [])),
  };
}
