import { RequestInvalidError } from '../errors';
import type { Region } from './fleet-model';
import { distanceKm, type CallerLocation } from './geo';

export interface RegionRequest {
  /** The region the player asked for (`region` in the body), if any. */
  readonly region?: string;
  /** The player's measured round trips, region → ms (`latencies`). */
  readonly latencies?: Readonly<Record<string, number>>;
  /** Where the caller is, when known (core/placement/geo.ts). */
  readonly caller?: CallerLocation;
}

/** Why a region is where it is in the order. */
type RegionReason = 'requested' | 'latency' | 'geo' | 'default' | 'remaining';

export interface RankedRegion {
  readonly region: string;
  readonly reason: RegionReason;
  /** The measured latency (ms) or the distance (km) that placed it. */
  readonly measure?: number;
}

/**
 * Every served region, best first, for a new room:
 *   1. the one the client asks for (400 when it is not served);
 *   2. then those the client measured, lowest latency first;
 *   3. then by distance from the caller's location, when known;
 *   4. then the default;
 *   5. then the rest by name.
 * The first is where the room goes; the next ones are where it may go instead when the
 * first has no healthy host and the client allowed fallback. Pure.
 */
export function rankRegions(request: RegionRequest, regions: readonly Region[]): RankedRegion[] {
  const served = new Map(regions.map((r) => [r.name, r]));
  const ranked: RankedRegion[] = [];
  const take = (entry: RankedRegion) => {
    if (!served.has(entry.region) || ranked.some((r) => r.region === entry.region)) return;
    ranked.push(entry);
  };
  if (request.region !== undefined) {
    if (!served.has(request.region)) {
      throw new RequestInvalidError(`Region '${request.region}' is not served here.`, [
        { field: 'body.region', message: `must be one of ${[...served.keys()].sort().join(', ')}` },
      ]);
    }
    take({ region: request.region, reason: 'requested' });
  }
  Object.entries(request.latencies ?? {})
    .filter(([, ms]) => Number.isFinite(ms))
    .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1))
    .forEach(([region, ms]) => take({ region, reason: 'latency', measure: ms }));
  const caller = request.caller;
  if (caller) {
    regions
      .flatMap((r) => (r.location ? [{ region: r.name, measure: Math.round(distanceKm(caller, r.location)) }] : []))
      .sort((a, b) => a.measure - b.measure || (a.region < b.region ? -1 : 1))
      .forEach((r) => take({ ...r, reason: 'geo' }));
  }
  for (const r of regions) if (r.default) take({ region: r.name, reason: 'default' });
  [...served.keys()].sort().forEach((region) => take({ region, reason: 'remaining' }));
  return ranked;
}
