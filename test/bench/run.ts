import { benchCreateToReady } from './create-to-ready';

/** `npm run bench`: every benchmark, each reporting ratios against a baseline from the same run. */
async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  await benchCreateToReady(Number(process.env.BENCH_ROUNDS ?? 20));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
