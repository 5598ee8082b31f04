/**
 * At most `perSecond` takes in any one-second window (fixed windows, from the first take of
 * each). Pure but for its own count; `now` in milliseconds (the sidecar's monotonic clock).
 *
 * @example
 * const take = perSecondLimit(2);
 * [take(0), take(10), take(20), take(1_000)]; // [true, true, false, true]
 */
export function perSecondLimit(perSecond: number): (now: number) => boolean {
  let windowStart = Number.NEGATIVE_INFINITY;
  let taken = 0;
  return (now) => {
    if (now - windowStart >= 1_000) {
      windowStart = now;
      taken = 0;
    }
    if (taken >= perSecond) return false;
    taken += 1;
    return true;
  };
}
