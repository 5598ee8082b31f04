import { locateCaller } from '../../core/placement/geo';
import type { PlacementRequest } from '../../core/placement/placement';
import type { Platform } from '../dependencies';

/** What a create or matchmaking request says about where its room may go. */
export function placementRequestOf(
  p: Pick<Platform, 'ipLocator'>,
  body: {
    readonly region?: string;
    readonly latencies?: Readonly<Record<string, number>>;
    readonly regionFallback?: boolean;
  },
  request: { readonly headers: Readonly<Record<string, string | undefined>>; readonly sourceIp: string },
): PlacementRequest {
  const caller = locateCaller(request, p.ipLocator);
  return {
    ...(body.region === undefined ? {} : { region: body.region }),
    ...(body.latencies === undefined ? {} : { latencies: body.latencies }),
    ...(caller ? { caller } : {}),
    fallback: body.regionFallback ?? false,
  };
}
