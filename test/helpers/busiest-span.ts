/** The most admissions (epoch ms) any half-open span [t, t + windowS) holds: what a rate limit must bound. */
export function busiestSpan(admitted: readonly number[], windowS: number): number {
  const sorted = [...admitted].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowS * 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
