import { createHash } from 'node:crypto';

export interface BucketSpec {
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
  readonly criteria: Readonly<Record<string, unknown>>;
  /**
   * The client's build (set hash, docs/versions.md), when it sent one and its configuration
   * checks builds: builds running side by side fill rooms of their own. Absent: the bucket of
   * every client that sends none.
   */
  readonly protocol?: string;
}

/** JSON with object keys sorted at every level, so equal criteria hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The bucket of rooms a find-or-create request may share: same game, version, region, criteria and build. */
export function bucketOf(spec: BucketSpec): string {
  const parts = [spec.gameId, spec.version, spec.region, spec.criteria];
  return createHash('sha256')
    .update(canonicalJson(spec.protocol === undefined ? parts : [...parts, { protocol: spec.protocol }]))
    .digest('base64url');
}

/** Whether a room's settings equal every key of the criteria. Pure. */
export function matchesCriteria(
  settings: Readonly<Record<string, unknown>>,
  criteria: Readonly<Record<string, unknown>>,
): boolean {
  return Object.entries(criteria).every(([key, value]) => canonicalJson(settings[key]) === canonicalJson(value));
}
