/** Order statistics and ratios for benchmark samples (milliseconds unless said otherwise). */

/** The nearest-rank percentile: the smallest sample with at least p % of the samples at or below it. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const n = samples.length;
  return {
    n,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    mean: n === 0 ? Number.NaN : samples.reduce((sum, s) => sum + s, 0) / n,
    max: n === 0 ? Number.NaN : Math.max(...samples),
  };
}

/** Element-wise sums of paired samples (one baseline round = its parts measured back to back). */
export function pairwiseSum(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error(`cannot pair ${a.length} samples with ${b.length}`);
  return a.map((value, i) => value + (b[i] as number));
}

/** `numerator / denominator`, or NaN when either is missing or the denominator is not positive. */
export function ratio(numerator: number, denominator: number): number {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator <= 0) return Number.NaN;
  return numerator / denominator;
}

/** Events per second. */
export function perSecond(count: number, elapsedMs: number): number {
  return ratio(count * 1000, elapsedMs);
}

export type Target = { readonly kind: 'atMost' | 'atLeast'; readonly value: number };

/** Whether a measured ratio meets its target; a ratio that could not be measured never does. */
export function meets(value: number, target: Target): boolean {
  if (!Number.isFinite(value)) return false;
  return target.kind === 'atMost' ? value <= target.value : value >= target.value;
}

export function describeTarget(target: Target): string {
  return `${target.kind === 'atMost' ? '≤' : '≥'} ${target.value}`;
}

export function formatMs(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : 'n/a';
}

export function formatRatio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(value < 1 ? 3 : 2) : 'n/a';
}

export const describeLatency = (s: LatencySummary) =>
  `p50 ${formatMs(s.p50)}  p90 ${formatMs(s.p90)}  p99 ${formatMs(s.p99)}`;

export const verdict = (meetsTarget: boolean) => (meetsTarget ? 'meets target' : 'MISSES target');

/** `0`, or the count and the statuses met (e.g. `3 {"503 UNAVAILABLE":3}`). */
export const describeErrors = (errors: number, statuses: Record<string, number>) =>
  errors === 0 ? '0' : `${errors} ${JSON.stringify(statuses)}`;
