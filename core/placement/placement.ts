import { HostRefusedError, NoHealthyHostError } from '../gameservers/errors';
import type { ServerCaps, ServerLease, ServerSlots } from '../gameservers/server-slot-store';
import { childLogger } from '../infra/logger';
import type { Fleet, FleetReader } from './fleet-store';
import { rankHosts, type Host, type HostSkip, type Region } from './fleet-model';
import { rankRegions, type RankedRegion, type RegionRequest } from './region';

/** Where a new room's server should go, as the client asked. */
export interface PlacementRequest extends RegionRequest {
  /** May the room go to the next best region when the best has no healthy host? (`regionFallback`) */
  readonly fallback?: boolean;
}

/** Where the server goes: the region, and the host when the fleet has hosts. */
export interface PlacementDecision {
  readonly region: string;
  readonly host?: Host;
}

interface RegionSkip {
  readonly region: string;
  readonly hosts: readonly HostSkip[];
}

const log = childLogger('placement');

/**
 * Chooses a new room's region and host and takes its server slot, in that order:
 *
 *   regions, best first (core/placement/region.ts)
 *     └─ hosts of the region that are healthy, least loaded first (core/placement/fleet-model.ts)
 *          └─ the slot transaction: caps + the host's counter, on condition it is still healthy
 *
 * A host that fails its condition (filled or went silent since the read) gives way to the
 * next; a region without a taker gives way to the next only when the client allowed
 * fallback. Otherwise 503 NO_HEALTHY_HOST naming why each host was skipped. Every decision
 * is logged with its reasons.
 *
 * A fleet without hosts has no host accounting: the spawner is its single host, and rooms go
 * to the best region (its regions', or the one `ROOM_REGION` when it names none).
 */
export class Placement {
  constructor(
    private readonly deps: {
      readonly fleet: FleetReader;
      readonly slots?: Pick<ServerSlots, 'acquire'>;
      readonly now: () => Date;
      /** The region served when the fleet names none. */
      readonly deploymentRegion: string;
    },
  ) {}

  /** The served regions, best first; 400 for a requested region that is not served. */
  async rank(request: RegionRequest): Promise<{ fleet: Fleet; ranked: RankedRegion[] }> {
    const fleet = await this.deps.fleet.read();
    return { fleet, ranked: rankRegions(request, this.regionsOf(fleet)) };
  }

  /**
   * The same ranking from regions read at most the `fleet` bound of core/infra/platform-cache.ts
   * ago, for a create from the warm pool, which takes a server already running and judges no host.
   */
  async rankRecent(request: RegionRequest): Promise<{ ranked: RankedRegion[] }> {
    const regions = this.deps.fleet.recentRegions
      ? await this.deps.fleet.recentRegions()
      : (await this.deps.fleet.read()).regions;
    return { ranked: rankRegions(request, this.regionsOf({ regions, hosts: [] })) };
  }

  /**
   * The region a room would go to now, without taking anything: the first with a healthy
   * host (the next ones only with fallback), else the best. Matchmaking files its bucket
   * under it: its open rooms take joins whatever the hosts, and a room it must create there
   * gets 503 from `place` when no host can take it.
   */
  async regionFor(request: PlacementRequest): Promise<string> {
    const { fleet, ranked } = await this.rank(request);
    const best = first(ranked).region;
    if (fleet.hosts.length === 0) return best;
    const allowed = request.fallback ? ranked : ranked.slice(0, 1);
    const now = this.deps.now();
    return (
      allowed.find((choice) => rankHosts(hostsOf(fleet, choice.region), now).candidates.length > 0)?.region ?? best
    );
  }

  /** Chooses region and host and takes the room's server slot (caps and host counter) in one write. */
  async place(
    roomId: string,
    request: PlacementRequest,
    lease: Omit<ServerLease, 'hostId'>,
    caps: ServerCaps,
  ): Promise<PlacementDecision> {
    const { fleet, ranked } = await this.rank(request);
    if (fleet.hosts.length === 0) {
      await this.deps.slots?.acquire(lease, caps);
      const region = first(ranked);
      log.info('placement decision', { roomId, region: region.region, regionReason: region.reason, host: null });
      return { region: region.region };
    }
    const skips: RegionSkip[] = [];
    for (const [index, choice] of ranked.entries()) {
      if (index > 0 && !request.fallback) break;
      const now = this.deps.now();
      const { candidates, skipped } = rankHosts(hostsOf(fleet, choice.region), now);
      const refused: HostSkip[] = [];
      for (const candidate of candidates) {
        try {
          if (this.deps.slots) await this.deps.slots.acquire(lease, caps, { host: candidate.host, now });
        } catch (error) {
          if (!(error instanceof HostRefusedError)) throw error;
          refused.push({
            hostId: candidate.host.hostId,
            reason: 'full',
            detail: 'refused the server when its slot was written',
          });
          continue;
        }
        log.info('placement decision', {
          roomId,
          region: choice.region,
          regionReason: choice.reason,
          ...(choice.measure === undefined ? {} : { regionMeasure: choice.measure }),
          host: candidate.host.hostId,
          hostLoad: Number(candidate.load.toFixed(3)),
          otherCandidates: candidates
            .filter((c) => c !== candidate)
            .map((c) => ({ hostId: c.host.hostId, load: Number(c.load.toFixed(3)) })),
          skippedHosts: [...skipped, ...refused],
          skippedRegions: skips,
        });
        return { region: choice.region, host: candidate.host };
      }
      skips.push({ region: choice.region, hosts: [...skipped, ...refused] });
    }
    log.warn('placement refused: no healthy host', {
      roomId,
      skippedRegions: skips,
      fallback: request.fallback ?? false,
    });
    throw noHealthyHost(skips, request.fallback ?? false);
  }

  private regionsOf(fleet: Fleet): readonly Region[] {
    if (fleet.regions.length > 0) return fleet.regions;
    return [{ name: this.deps.deploymentRegion, default: true }];
  }
}

function hostsOf(fleet: Fleet, region: string): Host[] {
  return fleet.hosts.filter((h) => h.region === region);
}

function first(ranked: readonly RankedRegion[]): RankedRegion {
  const best = ranked[0];
  if (!best) throw new NoHealthyHostError('This deployment serves no region.', { details: { regions: [] } });
  return best;
}

function noHealthyHost(skips: readonly RegionSkip[], fallback: boolean): NoHealthyHostError {
  const described = skips
    .map(({ region, hosts }) =>
      hosts.length === 0
        ? `${region}: no hosts`
        : `${region}: ${hosts.map((h) => `${h.hostId} ${h.reason} (${h.detail})`).join('; ')}`,
    )
    .join(' | ');
  const hint = fallback ? '' : ' Send "regionFallback": true to accept another region.';
  return new NoHealthyHostError(`No healthy host with room for a new game server. ${described}.${hint}`, {
    details: { regions: skips },
    headers: { 'retry-after': '5' },
  });
}
