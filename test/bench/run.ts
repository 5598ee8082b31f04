import { benchCreateToReady } from './create-to-ready';
import { benchJoinLatency } from './join-latency';

/** `npm run bench`: every benchmark, each reporting ratios against a baseline from the same run. */
async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const only = process.argv[2];
  if (!only || only === 'join') await benchJoinLatency(Number(process.env.BENCH_JOINS ?? 500));
  if (!only || only === 'create') await benchCreateToReady(Number(process.env.BENCH_ROUNDS ?? 20));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
