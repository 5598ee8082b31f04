/**
 * Progress on stderr for any phase longer than a second, so a bench run never looks hung and
 * stdout keeps only results. Each phase prints at most once a second.
 */
export interface Progress {
  /** Count `n` more units done. */
  add(n?: number): void;
  /** Extra words for the next progress line (e.g. a running latency). */
  note(text: string): void;
}

const reportEveryMs = 1_000;

export async function phase<T>(
  label: string,
  total: number | undefined,
  work: (progress: Progress) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let done = 0;
  let detail = '';
  const line = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const count = total === undefined ? `${done}` : `${done}/${total}`;
    return `  … ${label}: ${count} after ${seconds} s${detail ? ` (${detail})` : ''}\n`;
  };
  const timer = setInterval(() => process.stderr.write(line()), reportEveryMs);
  try {
    return await work({
      add: (n = 1) => void (done += n),
      note: (text) => void (detail = text),
    });
  } finally {
    clearInterval(timer);
    const elapsed = performance.now() - started;
    if (elapsed > reportEveryMs) process.stderr.write(`  ✓ ${label}: ${done} in ${(elapsed / 1000).toFixed(1)} s\n`);
  }
}

/** Runs `work` on every item with at most `limit` in flight. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
