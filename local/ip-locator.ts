import { createRequire } from 'node:module';
import type { GeoPoint, IpLocator } from '../core/placement/geo';

interface GeoipLite {
  lookup(ip: string): { ll?: [number, number] } | null;
}

/**
 * The local cloud's IP → location database: geoip-lite, whose data ships in its npm package
 * (GeoLite2, about 110 MB in memory). Loaded at the first public address, not at start: a
 * laptop's own requests come from 127.0.0.1 and never need it.
 */
export function geoipLiteLocator(): IpLocator {
  let database: GeoipLite | undefined;
  return (ip: string): GeoPoint | undefined => {
    database ??= createRequire(__filename)('geoip-lite') as GeoipLite;
    const ll = database.lookup(ip)?.ll;
    if (!ll || (ll[0] === 0 && ll[1] === 0)) return undefined;
    return { lat: ll[0], lon: ll[1] };
  };
}
