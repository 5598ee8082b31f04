import type { Logger } from '@aws-lambda-powertools/logger';
import type { GameServerConfiguration } from '../gameservers/configuration';
import { deploymentOf } from '../gameservers/deployment';
import type { ServerCaps } from '../gameservers/server-slot-store';
import type { Spawner } from '../gameservers/spawner';
import { countSpawnFailure } from '../infra/metrics';
import type { Placement } from '../placement/placement';
import { sidecarBoundsOf } from './cost-bounds';
import type { RoomCosts } from './create';
import { isLive, type Room, type RoomFailureReason } from './model';
import { isStaleReport, replaceable } from './replacement';
import type { RoomStore, SessionRead } from './room-store';

export interface ServerReplacementDependencies {
  readonly rooms: Pick<RoomStore, 'read' | 'replaceServer' | 'recordPlacement' | 'markFailed'>;
  readonly configuration: (gameId: string, version: string) => Promise<GameServerConfiguration>;
  readonly spawner: Spawner;
  /** Chooses the replacement's host in the room's region (the room's server slot is kept, not taken again). */
  readonly placement?: Pick<Placement, 'place'>;
  readonly costs?: RoomCosts;
  readonly mintServerToken: (configuration: GameServerConfiguration, roomId: string) => Promise<string>;
  readonly now: () => Date;
  readonly log: Pick<Logger, 'info' | 'warn'>;
}

/** What a server's death came to: its room replaced (at `epoch`), failed, or left as it was. */
export type DeathOutcome =
  | { readonly kind: 'replaced'; readonly epoch: number; readonly room: Room }
  | { readonly kind: 'failed' }
  | { readonly kind: 'unchanged' };

/** The evidence of a death: why, and, from a sidecar, the epoch of the server that died. */
export interface ServerDeath {
  readonly reason: RoomFailureReason;
  readonly epoch?: number;
  /** A read already in hand (the sweeper's): no read of its own then. */
  readonly read?: SessionRead;
}

/** A join or a member's write between the read and the replacement write: read again this often. */
const replaceAttempts = 4;

/**
 * A dedicated room's game server died (its sidecar's report, the local fleet's, or the
 * sweeper's heartbeat timeout). A `migrateHost` room gets a replacement server; any other
 * room fails as before. Every path that sees a death calls this, and the replacement write's
 * epoch condition lets exactly one of them replace the room: the others find the epoch moved
 * and change nothing.
 *
 *   read ─► stale epoch? ─ yes ► unchanged
 *        └► replaceable? ─ no ─► markFailed
 *                        └ yes ► replaceServer (one conditional write) ─► stop the old task ─► spawn
 *
 * The replacement is a new spawn, never a warm standby server: a standby server is a room of
 * its own, and its sidecar's channel key, queues and credentials are bound to that room's id
 * (docs/game-servers.md "Replacement").
 */
export async function replaceOrFail(
  roomId: string,
  death: ServerDeath,
  deps: ServerReplacementDependencies,
): Promise<DeathOutcome> {
  let read = death.read ?? (await deps.rooms.read(roomId));
  for (let attempt = 0; read && isLive(read.room.state); attempt++) {
    if (isStaleReport(read.room, death.epoch)) return { kind: 'unchanged' };
    if (!replaceable(read.room)) return fail(roomId, death.reason, deps);
    // A room too busy to move now stays as it is: the sweeper sees its server silent and tries again.
    if (attempt >= replaceAttempts) return { kind: 'unchanged' };
    const configuration = await configurationOf(read.room, deps);
    if (!configuration) return fail(roomId, death.reason, deps);
    const now = deps.now();
    const spawnDeadline = new Date(now.getTime() + configuration.spawnTimeoutS * 1000);
    const written = await deps.rooms.replaceServer(read, {
      now,
      spawnDeadline,
      deployment: deploymentOf(configuration),
      protocolCheck: configuration.checkProtocol !== false,
    });
    if (written.applied) {
      const epoch = written.room.host?.epoch ?? 0;
      deps.log.info('replacing a dead game server', { roomId, reason: death.reason, epoch });
      await startReplacement(read.room, written.room, configuration, deps);
      return { kind: 'replaced', epoch, room: written.room };
    }
    read = await deps.rooms.read(roomId);
  }
  return { kind: 'unchanged' };
}

async function fail(roomId: string, reason: RoomFailureReason, deps: ServerReplacementDependencies) {
  const failed = await deps.rooms.markFailed(roomId, reason, deps.now());
  return failed.applied ? ({ kind: 'failed' } as const) : ({ kind: 'unchanged' } as const);
}

async function configurationOf(
  room: Room,
  deps: ServerReplacementDependencies,
): Promise<GameServerConfiguration | undefined> {
  try {
    return await deps.configuration(room.gameId, room.version);
  } catch (error) {
    deps.log.warn('no configuration to replace the server with; failing the room', {
      roomId: room.roomId,
      error: error as Error,
    });
    return undefined;
  }
}

/**
 * Stops what is left of the old server (a hung or partitioned one may still run: its messages
 * are refused by epoch, but it holds a host's ports), then starts the replacement with the
 * room's epoch. A start that fails fails the room, as a create's does.
 */
async function startReplacement(
  old: Room,
  room: Room,
  configuration: GameServerConfiguration,
  deps: ServerReplacementDependencies,
): Promise<void> {
  if (old.placement) {
    await deps.spawner.stop(old.placement.taskId, 'replaced').catch((error: unknown) => {
      deps.log.warn('could not stop the replaced game server', { roomId: room.roomId, error: error as Error });
    });
  }
  try {
    const host = await hostFor(room, deps);
    const placement = await deps.spawner.spawn({
      roomId: room.roomId,
      region: room.region,
      ...(host ? { host: { hostId: host.hostId, ...(host.ecs ? { ecs: host.ecs } : {}) } } : {}),
      configuration,
      roomSettings: room.settings,
      maxPlayers: room.maxPlayers,
      loginAccessToken: await deps.mintServerToken(configuration, room.roomId),
      bounds: sidecarBoundsOf(room),
      startBy: new Date(room.spawnDeadline),
      ...(room.host ? { epoch: room.host.epoch } : {}),
    });
    await deps.rooms.recordPlacement(room.roomId, placement, deps.now());
  } catch (error) {
    deps.log.warn('the replacement game server could not start; failing the room', {
      roomId: room.roomId,
      error: error as Error,
    });
    const failed = await deps.rooms.markFailed(room.roomId, 'spawn-failed', deps.now());
    if (failed.applied) countSpawnFailure('spawn-failed', deps.now());
    await deps.costs?.slots.release(room.roomId);
  }
}

/**
 * The replacement's host, in the room's own region (its players are there). The room still
 * holds its server slot (a replaced server never gave it back), so placing it takes none.
 */
async function hostFor(room: Room, deps: ServerReplacementDependencies) {
  if (!deps.placement) return undefined;
  const lease = { roomId: room.roomId, gameId: room.gameId, version: room.version, acquiredAt: room.createdAt };
  const unlimited: ServerCaps = { global: Number.MAX_SAFE_INTEGER, configuration: Number.MAX_SAFE_INTEGER };
  const decision = await deps.placement.place(room.roomId, { region: room.region }, lease, unlimited);
  return decision.host;
}
