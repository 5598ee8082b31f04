import { RequestInvalidError } from '../errors';

export interface RegionChoice {
  /** The region the player asked for, if any. */
  readonly requested?: string;
  /** The player's measured round trips, region → ms. */
  readonly latencies?: Readonly<Record<string, number>>;
}

/**
 * Where a new room goes: the region asked for, else the lowest measured latency among the
 * regions this deployment serves, else the default. Pure: the caller passes what it knows.
 */
export function resolveRegion(choice: RegionChoice, served: readonly string[], fallback: string): string {
  if (choice.requested !== undefined) {
    if (!served.includes(choice.requested)) {
      throw new RequestInvalidError(`Region '${choice.requested}' is not served here.`, [
        { field: 'body.region', message: `must be one of ${served.join(', ')}` },
      ]);
    }
    return choice.requested;
  }
  const measured = Object.entries(choice.latencies ?? {})
    .filter(([region, ms]) => served.includes(region) && Number.isFinite(ms))
    .sort(([, a], [, b]) => a - b);
  return measured[0]?.[0] ?? fallback;
}
