/** Order statistics for benchmark samples (milliseconds). */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export function formatMs(value: number): string {
  return `${value.toFixed(1)} ms`;
}
