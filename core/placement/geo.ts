import { isIP } from 'node:net';

/** A point on the globe, in degrees. */
export interface GeoPoint {
  readonly lat: number;
  readonly lon: number;
}

/** Where a caller is, and how that was learned (for the placement log). */
export interface CallerLocation extends GeoPoint {
  readonly source: 'cloudfront-headers' | 'ip-database';
}

/**
 * Finds the location of a public IP address (the local cloud's adapter reads the geoip-lite
 * database that ships in its npm package). Only ever called with addresses `isPublicAddress`
 * accepts; answers `undefined` for an address the database does not know.
 */
export type IpLocator = (ip: string) => GeoPoint | undefined;

const earthRadiusKm = 6_371;

/** Great-circle distance (haversine): what "nearest region" means. */
export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * earthRadiusKm * Math.asin(Math.min(1, Math.sqrt(h)));
}

function ipv4Octets(ip: string): number[] | undefined {
  if (isIP(ip) !== 4) return undefined;
  return ip.split('.').map(Number);
}

/**
 * Whether an address can say where a player is: not private (RFC 1918, RFC 4193), loopback,
 * link-local, CGNAT (RFC 6598), unspecified, multicast or documentation space. IPv4-mapped
 * IPv6 (`::ffff:a.b.c.d`) is judged as its IPv4 address.
 */
export function isPublicAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const v4 = ipv4Octets(mapped?.[1] ?? ip);
  if (v4) {
    const [a = 0, b = 0] = v4;
    if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
    if (a === 169 && b === 254) return false;
    if (a === 172 && b >= 16 && b <= 31) return false;
    if (a === 192 && b === 168) return false;
    if (a === 100 && b >= 64 && b <= 127) return false;
    if (a === 192 && b === 0) return false;
    if ((a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51) || (a === 203 && b === 0)) return false;
    return true;
  }
  if (isIP(ip) !== 6) return false;
  const lower = ip.toLowerCase();
  if (lower === '::' || lower === '::1') return false;
  const first = parseInt(lower.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  if (lower.startsWith('2001:db8:') || lower.startsWith('2001:0db8:')) return false; // documentation
  return true;
}

function header(headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  return headers[name] ?? headers[name.toLowerCase()];
}

function coordinate(text: string | undefined, limit: number): number | undefined {
  if (text === undefined || !/^-?\d{1,3}(\.\d+)?$/.test(text.trim())) return undefined;
  const value = Number(text);
  return Math.abs(value) <= limit ? value : undefined;
}

/**
 * The caller's location: CloudFront's viewer headers when a distribution in front of the API
 * adds them, else the IP database's answer for a public source address, else unknown.
 *
 * Trusting the headers is safe even where a client could send them itself: all a forged
 * location can do is choose the caller's own region, which `region` in the body does anyway.
 */
export function locateCaller(
  request: { readonly headers: Readonly<Record<string, string | undefined>>; readonly sourceIp: string },
  ipLocator?: IpLocator,
): CallerLocation | undefined {
  const lat = coordinate(header(request.headers, 'cloudfront-viewer-latitude'), 90);
  const lon = coordinate(header(request.headers, 'cloudfront-viewer-longitude'), 180);
  if (lat !== undefined && lon !== undefined) return { lat, lon, source: 'cloudfront-headers' };
  if (!ipLocator || !isPublicAddress(request.sourceIp)) return undefined;
  const found = ipLocator(request.sourceIp);
  return found ? { lat: found.lat, lon: found.lon, source: 'ip-database' } : undefined;
}
