import type { HostBody, Region } from '../core/placement/fleet-model';
import type { LocalConfigFile } from './config-file';

export interface LocalFleetPlan {
  readonly regions: readonly Region[];
  readonly hosts: readonly HostBody[];
  /** The region rooms get when nothing else chooses: the file's default, or its first. */
  readonly defaultRegion: string;
}

/** Local hosts run servers of their region only; one machine, so one port pool for all. */
const localMaxServers = 200;

/**
 * The regions and hosts the local cloud installs: the file's `regions` as written, or one
 * region (`region`) with `hostCount` hosts named local-1 … local-N.
 */
export function localFleetPlan(file: LocalConfigFile, hostCount: number): LocalFleetPlan {
  if (!file.regions) {
    const region = file.region;
    return {
      regions: [{ name: region, default: true }],
      hosts: Array.from({ length: hostCount }, (_, i) => ({
        hostId: `local-${i + 1}`,
        region,
        maxServers: localMaxServers,
        limits: { cpu: 1, memory: 1 },
      })),
      defaultRegion: region,
    };
  }
  const regions = file.regions.map(({ name, location, default: isDefault }) => ({
    name,
    default: isDefault,
    ...(location ? { location } : {}),
  }));
  return {
    regions,
    hosts: file.regions.flatMap((r) => r.hosts.map((h) => ({ ...h, region: r.name }))),
    defaultRegion: (file.regions.find((r) => r.default) ?? file.regions[0])?.name ?? file.region,
  };
}
