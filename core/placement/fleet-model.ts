import * as z from 'zod';
import { storableNumber } from '../protocol/storable-json';

/**
 * The fleet: regions (a name, a location, one of them the default) and the hosts in them (a
 * place game servers run, with a capacity). Admins change it through `/v1/admin/regions` and
 * `/v1/admin/hosts`, the local cloud from its file; placement reads it on every create.
 */
export const regionNameSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9-]+$/, 'must be a region name (lowercase letters, digits, dashes)');

export const geoPointSchema = z.strictObject({
  lat: storableNumber().min(-90).max(90),
  lon: storableNumber().min(-180).max(180),
});

export const regionBodySchema = z
  .strictObject({
    location: geoPointSchema.describe('Where the region is, for choosing the nearest one to a caller.'),
    default: z
      .boolean()
      .default(false)
      .describe('Rooms go here when no other rule chooses; setting it moves the flag from any other region.'),
  })
  .meta({ id: 'RegionRequest' });

export interface Region {
  readonly name: string;
  readonly location?: z.infer<typeof geoPointSchema>;
  readonly default: boolean;
}

export const hostIdSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes');

/** Load fractions (0–1) above which a host gets no new servers. */
export const hostLimitsSchema = z.strictObject({
  cpu: storableNumber().gt(0).max(1).default(0.9),
  memory: storableNumber().gt(0).max(1).default(0.9),
});

export const hostBodySchema = z
  .strictObject({
    hostId: hostIdSchema,
    region: regionNameSchema,
    maxServers: z.number().int().min(1).max(100_000).describe('Game servers it may run at once.'),
    limits: hostLimitsSchema.default({ cpu: 0.9, memory: 0.9 }),
    heartbeatTimeoutS: z
      .number()
      .int()
      .min(1)
      .max(3_600)
      .optional()
      .describe('No heartbeat for this long and the host gets no new servers (default 15 s; ECS hosts 180 s).'),
    ecs: z
      .strictObject({
        cluster: z.string().min(1).max(2_048),
        capacityProvider: z.string().min(1).max(255).optional(),
      })
      .optional()
      .describe("Deployed: the ECS cluster (and capacity provider) this host's game server tasks run in."),
  })
  .meta({ id: 'HostRequest' });
export type HostBody = z.output<typeof hostBodySchema>;

export const hostPatchSchema = z
  .strictObject({
    draining: z.boolean().optional().describe('true: no new servers; its rooms play out.'),
    maxServers: z.number().int().min(1).max(100_000).optional(),
    limits: hostLimitsSchema.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'must change something')
  .meta({ id: 'HostPatch' });
export type HostPatch = z.output<typeof hostPatchSchema>;

export const hostHeartbeatSchema = z
  .strictObject({
    cpu: storableNumber().min(0).max(1).describe('CPU in use, a fraction of what the host has.'),
    memory: storableNumber().min(0).max(1).describe('Memory in use, a fraction of what the host has.'),
    servers: z.number().int().min(0).max(1_000_000).describe('Game servers running on it.'),
  })
  .meta({ id: 'HostHeartbeat' });
export type HostHeartbeat = z.output<typeof hostHeartbeatSchema>;

export interface Host extends HostBody {
  readonly heartbeatTimeoutS: number;
  readonly draining: boolean;
  /** Servers the platform placed here and has not released: counted in the same write as the placement. */
  readonly placed: number;
  readonly createdAt: string;
  readonly heartbeat?: HostHeartbeat & { readonly at: string };
}

export const defaultHeartbeatTimeoutS = { local: 15, ecs: 180 } as const;

type HostRefusal = 'draining' | 'no-heartbeat' | 'heartbeat-late' | 'full' | 'cpu-over-limit' | 'memory-over-limit';

export type HostHealth =
  | { readonly healthy: true; readonly load: number }
  | { readonly healthy: false; readonly reason: HostRefusal; readonly detail: string };

/** The heartbeat instant before which a host counts as silent. */
export function freshSince(host: Pick<Host, 'heartbeatTimeoutS'>, now: Date): string {
  return new Date(now.getTime() - host.heartbeatTimeoutS * 1000).toISOString();
}

/**
 * Whether a host may get a new server now, and how loaded it is: the largest of its server
 * share (placed or reported, whichever is more), CPU and memory. Pure.
 */
export function hostHealth(host: Host, now: Date): HostHealth {
  if (host.draining) return { healthy: false, reason: 'draining', detail: 'drained by an admin' };
  const beat = host.heartbeat;
  if (!beat) return { healthy: false, reason: 'no-heartbeat', detail: 'has never sent a heartbeat' };
  if (beat.at < freshSince(host, now)) {
    const silentS = Math.round((now.getTime() - Date.parse(beat.at)) / 1000);
    return {
      healthy: false,
      reason: 'heartbeat-late',
      detail: `last heartbeat ${silentS} s ago (timeout ${host.heartbeatTimeoutS} s)`,
    };
  }
  const servers = Math.max(host.placed, beat.servers);
  if (servers >= host.maxServers) {
    return { healthy: false, reason: 'full', detail: `runs ${servers} of ${host.maxServers} servers` };
  }
  if (beat.cpu > host.limits.cpu) {
    return { healthy: false, reason: 'cpu-over-limit', detail: `CPU ${pct(beat.cpu)} over ${pct(host.limits.cpu)}` };
  }
  if (beat.memory > host.limits.memory) {
    return {
      healthy: false,
      reason: 'memory-over-limit',
      detail: `memory ${pct(beat.memory)} over ${pct(host.limits.memory)}`,
    };
  }
  return { healthy: true, load: loadOf(host, servers, beat) };
}

function loadOf(host: Pick<Host, 'maxServers'>, servers: number, beat: HostHeartbeat): number {
  return Math.max(servers / host.maxServers, beat.cpu, beat.memory);
}

function pct(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

export interface HostCandidate {
  readonly host: Host;
  readonly load: number;
}

export interface HostSkip {
  readonly hostId: string;
  readonly reason: HostRefusal;
  readonly detail: string;
}

/**
 * A region's hosts that may take a server, least loaded first; equal loads in host id order,
 * so the same fleet always gives the same choice. The others, with why. Pure.
 */
export function rankHosts(hosts: readonly Host[], now: Date): { candidates: HostCandidate[]; skipped: HostSkip[] } {
  const candidates: HostCandidate[] = [];
  const skipped: HostSkip[] = [];
  for (const host of hosts) {
    const health = hostHealth(host, now);
    if (health.healthy) candidates.push({ host, load: health.load });
    else skipped.push({ hostId: host.hostId, reason: health.reason, detail: health.detail });
  }
  candidates.sort((a, b) => a.load - b.load || (a.host.hostId < b.host.hostId ? -1 : 1));
  return { candidates, skipped };
}

/** What an operator reads of a host besides its record and health (the console's servers page). */
export interface HostReadings {
  /** Servers counted on it: placed or reported, whichever is more (what placement counts). */
  readonly servers: number;
  /** Seconds since its last heartbeat, by the platform's clock; absent before the first. */
  readonly heartbeatAgeS?: number;
  /**
   * The largest of server share, CPU and memory by its last heartbeat, whether or not it may
   * take servers (health carries it only while it may); absent before the first heartbeat.
   */
  readonly load?: number;
}

/** A host as the admin API shows it: the record, what placement makes of it now, and its readings. */
export function hostView(host: Host, now: Date): Host & { readonly health: HostHealth } & HostReadings {
  const beat = host.heartbeat;
  const servers = Math.max(host.placed, beat?.servers ?? 0);
  return {
    ...host,
    health: hostHealth(host, now),
    servers,
    ...(beat
      ? {
          heartbeatAgeS: Math.max(0, Math.round((now.getTime() - Date.parse(beat.at)) / 1000)),
          load: loadOf(host, servers, beat),
        }
      : {}),
  };
}
