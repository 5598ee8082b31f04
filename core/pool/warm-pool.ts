import { grantableScopes, platformOwnerPrefix } from '../auth/token-model';
import type { GameServerConfiguration } from '../gameservers/configuration';
import { NoHealthyHostError } from '../gameservers/errors';
import type { Spawner } from '../gameservers/spawner';
import { afterTheRequestMs, type Later } from '../infra/later';
import { childLogger } from '../infra/logger';
import { countSpawnFailure } from '../infra/metrics';
import type { Placement } from '../placement/placement';
import { roomBoundsOf } from '../rooms/cost-bounds';
import type { RoomCosts } from '../rooms/create';
import type { Room } from '../rooms/model';
import type { RoomStore } from '../rooms/store';
import type { SessionRead } from '../sessions/store';
import { defaultConstants } from '../sessions/model';
import type { AssignCall, Assignment } from './assign';
import type { HandOver, PoolKey, PoolStore, StandbyServer } from './pool-store';
import type { KnownReadyServers } from './ready-servers';

/**
 * The owner of a standby room: a reserved account name, so no caller can be it (the HTTP
 * verifier refuses every token whose `sub` the platform reserves: core/auth/token-model.ts).
 */
export const standbyOwner = `${platformOwnerPrefix}standby`;

/** The game's answer to `assign`, as the sidecar relayed it. */
export type AssignOutcome =
  | { readonly accepted: true }
  | {
      readonly accepted: false;
      readonly detail: string;
      /** Its sidecar had relayed another create's `assign` first: the game has that room's settings. */
      readonly assignedAlready?: true;
    };

export interface WarmPoolDependencies {
  readonly pool: PoolStore;
  readonly rooms: RoomStore;
  readonly placement: Placement;
  readonly spawner: Spawner;
  readonly costs: RoomCosts;
  readonly now: () => Date;
  readonly newRoomId: () => string;
  readonly mintServerToken: (configuration: GameServerConfiguration, roomId: string) => Promise<string>;
  /**
   * Hands the standby server its room: `assign` to the game through its sidecar, and its
   * answer. `abandoned` aborts when the room turned out not to be the create's.
   */
  readonly assign: (assignment: Assignment, abandoned: AbortSignal) => AssignCall;
  /** The process's knowledge of its pools' ready servers: which one a create tries. */
  readonly readyServers: KnownReadyServers;
  /** Work after the request: taking a handed-over server off its pool's ready list. */
  readonly later: Later;
}

const log = childLogger('warm-pool');

/** How many ready standby servers one create tries before it starts a server cold. */
const takeAttempts = 3;

/**
 * The warm pool: per configuration with `standby: N` and per region, N game servers started
 * and `inited` ahead of demand. Each is a room of its own (its id, token, sidecar keys and
 * reply queue are made for it as for any room) that is nobody's yet: `standby`, closed to
 * joins, in no listing. A create takes one (`take`), which turns it into the creator's room in
 * one write, and hands the game its settings with `assign`. The pool keeper starts the
 * replacement.
 */
export class WarmPool {
  constructor(private readonly deps: WarmPoolDependencies) {}

  /**
   * Hands the creator a ready standby server of `region`'s pool, named from what this process
   * knows of the pool (core/pool/ready-servers.ts), with no request first. The game gets
   * `assign` at once and, once that is on the sidecar's queue, the server's room becomes the
   * creator's (`handOver`, a conditional write on the room) while the game answers: neither the
   * write nor a request that would pick the server comes before the round trip to the game.
   *
   * The write decides who has the server. When it fails (another create, here or in another
   * process, took the server; or it ended) this create stops waiting and tries another. A
   * server whose sidecar relayed another create's `assign` first answers this one -32007: when
   * this create won the room all the same, the server has someone else's settings, so it ends
   * and another is tried. Any other refusal ends the server too, and the create starts cold.
   * Undefined when no server could be taken.
   */
  async take(
    configuration: GameServerConfiguration,
    region: string,
    handOver: HandOver,
  ): Promise<SessionRead | undefined> {
    const key: PoolKey = { gameId: configuration.gameId, version: configuration.version, region };
    for (let attempt = 0; attempt < takeAttempts; attempt++) {
      const roomId = await this.deps.readyServers.next(key);
      if (!roomId) return undefined;
      const notOurs = new AbortController();
      const assigning = this.deps.assign(
        { roomId, settings: handOver.settings, maxPlayers: handOver.maxPlayers },
        notOurs.signal,
      );
      // The room's write goes once `assign` is on the sidecar's queue: the send is what the
      // game, and so the create, waits for, and the write is still done long before the
      // game's answer is back.
      const handed = assigning.sent
        .then(() => this.deps.pool.handOver(key, roomId, handOver))
        .then(
          (session) => {
            if (!session) notOurs.abort();
            return session;
          },
          (error: unknown) => {
            notOurs.abort();
            throw error;
          },
        );
      const [session, outcome] = await Promise.all([handed, assigning.outcome]);
      if (!session) {
        log.info('a standby server was taken or had ended; trying another', { roomId, gameId: key.gameId, region });
        continue;
      }
      // Off the ready list once the creator has its answer; the pool keeper would drop it too.
      this.deps.later(() => void this.unlist(key, roomId), afterTheRequestMs);
      if (outcome.accepted) return session;
      log.warn('a standby server refused its hand-over; ending it', {
        roomId,
        gameId: key.gameId,
        detail: outcome.detail,
      });
      await this.end(session.room, outcome.assignedAlready !== true);
      if (!outcome.assignedAlready) return undefined;
    }
    return undefined;
  }

  private async unlist(key: PoolKey, roomId: string): Promise<void> {
    try {
      await this.deps.pool.remove(key, roomId);
    } catch (error) {
      log.warn('could not take a handed-over server off its pool; the pool keeper will', {
        roomId,
        error: error as Error,
      });
    }
  }

  /**
   * A taken server that will not serve its room: the room fails, its server stops, its slot is
   * freed. Counted as a failed spawn when its game refused; not when two creates tried it.
   */
  private async end(room: Room, gameRefused: boolean): Promise<void> {
    await this.deps.rooms.markFailed(room.roomId, 'assign-refused', this.deps.now());
    if (gameRefused) countSpawnFailure('spawn-failed', this.deps.now());
    if (room.placement) await this.deps.spawner.stop(room.placement.taskId, 'assign-refused');
    await this.deps.costs.slots.release(room.roomId);
  }

  /**
   * Brings the region's pool to exactly `standby` servers (ready or starting): drops entries
   * whose room ended or was taken, starts the missing ones, and ends ready ones beyond the
   * number (left when `standby` was lowered). The pool keeper runs it
   * (lambdas/schedule/pool-keeper.ts), one run at a time; a create never starts a server for
   * the pool.
   */
  async refill(configuration: GameServerConfiguration, region: string): Promise<number> {
    const wanted = configuration.standby ?? 0;
    const key: PoolKey = { gameId: configuration.gameId, version: configuration.version, region };
    const kept = await this.shrink(key, wanted);
    const missing = Math.max(0, wanted - kept);
    const started = await Promise.all(Array.from({ length: missing }, () => this.startStandby(configuration, region)));
    return started.filter(Boolean).length;
  }

  /**
   * Empties a pool whose configuration keeps none any more (`standby` lowered to 0, or the
   * configuration deleted): needs no configuration. Returns how many servers are still listed:
   * those still starting (only a ready room can be closed), retired by a later pass once ready,
   * or dropped once their start failed.
   */
  async drain(key: PoolKey): Promise<number> {
    return this.shrink(key, 0);
  }

  /**
   * Drops the entries whose room ended or was taken, and retires ready servers beyond `wanted`.
   * Returns how many servers the pool still lists.
   */
  private async shrink(key: PoolKey, wanted: number): Promise<number> {
    const servers = await this.deps.pool.servers(key);
    const kept: StandbyServer[] = [];
    for (const server of servers) {
      if (!(await this.stillStandby(server))) await this.deps.pool.remove(key, server.roomId);
      else kept.push(server);
    }
    const extra = kept.filter((s) => s.state === 'ready').slice(0, Math.max(0, kept.length - wanted));
    for (const server of extra) await this.retire(key, server.roomId);
    return kept.length - extra.length;
  }

  /** Ends one pooled server nobody took: its pool entry first, so no create that reads the list later tries it. */
  private async retire(key: PoolKey, roomId: string): Promise<void> {
    await this.deps.pool.remove(key, roomId);
    const room = await this.deps.rooms.find(roomId);
    if (!room?.standby) return;
    // Only as it was read: a create that knew the server from before its removal may have won it since.
    const closed = await this.deps.rooms.markClosed(roomId, this.deps.now(), { changeNumber: room.changeNumber });
    if (closed.applied && room.placement) await this.deps.spawner.stop(room.placement.taskId, 'pool-shrunk');
    log.info('standby server retired', { roomId, gameId: key.gameId, region: key.region });
  }

  /** A pooled server counts while its room is a live standby room. */
  private async stillStandby(server: StandbyServer): Promise<boolean> {
    const room = await this.deps.rooms.find(server.roomId);
    return room?.standby === true && (room.state === 'spawning' || room.state === 'ready');
  }

  /** One standby server: a standby room, its slot on a host of `region`, and its start. */
  async startStandby(configuration: GameServerConfiguration, region: string): Promise<string | undefined> {
    const { deps } = this;
    const created = deps.now();
    const roomId = deps.newRoomId();
    const lease = {
      roomId,
      gameId: configuration.gameId,
      version: configuration.version,
      acquiredAt: created.toISOString(),
    };
    let host;
    try {
      const decision = await deps.placement.place(roomId, { region }, lease, {
        global: deps.costs.defaults.maxRunningServers,
        configuration: configuration.maxServers ?? deps.costs.defaults.maxServersPerConfiguration,
      });
      host = decision.host;
    } catch (error) {
      // No room for a standby server: players still get cold starts, the next refill tries again.
      if (error instanceof NoHealthyHostError) {
        log.info('no host for a standby server', { gameId: configuration.gameId, region, reason: error.message });
        return undefined;
      }
      throw error;
    }
    const room = standbyRoom(roomId, configuration, region, created, deps.costs);
    const key: PoolKey = { gameId: configuration.gameId, version: configuration.version, region };
    try {
      await deps.rooms.createWithMember(room);
      await deps.pool.addStarting(key, roomId, created);
      // Listed first, then the registration read: a keeper that read `standby` before it was
      // lowered to 0 (or the configuration deleted) cannot leave a server in a pool nobody
      // empties. Either this read sees the 0 and the start ends here, or the keeper emptying
      // the pool reads it after this listing and retires the server.
      if (!(await deps.pool.keeps(configuration.gameId, configuration.version))) {
        throw new PoolNotKeptError(configuration.gameId, configuration.version);
      }
      const placement = await deps.spawner.spawn({
        roomId,
        region,
        ...(host ? { host: { hostId: host.hostId, ...(host.ecs ? { ecs: host.ecs } : {}) } } : {}),
        configuration,
        roomSettings: {},
        maxPlayers: configuration.maxPlayers,
        loginAccessToken: await deps.mintServerToken(configuration, roomId),
        standby: true,
      });
      await deps.rooms.recordPlacement(roomId, placement, deps.now());
      log.info('standby server started', { roomId, gameId: configuration.gameId, region, host: host?.hostId ?? null });
      return roomId;
    } catch (error) {
      if (error instanceof PoolNotKeptError)
        log.info('standby server not started: its pool is being emptied', { roomId });
      else log.warn('standby server could not start', { roomId, error: error as Error });
      await deps.rooms.markFailed(roomId, 'spawn-failed', deps.now()).catch(() => undefined);
      await deps.pool.remove(key, roomId).catch(() => undefined);
      await deps.costs.slots.release(roomId).catch(() => undefined);
      return undefined;
    }
  }
}

/** A standby start found its configuration keeping no pool any more (read after it was listed). */
export class PoolNotKeptError extends Error {
  override readonly name = 'PoolNotKeptError';
  constructor(gameId: string, version: string) {
    super(`The configuration ${gameId} version ${version} keeps no warm pool any more.`);
  }
}

/** A standby server's room: nobody's, closed to joins, sized by the configuration. */
export function standbyRoom(
  roomId: string,
  configuration: GameServerConfiguration,
  region: string,
  created: Date,
  costs: RoomCosts,
): Room {
  const shape = { maxPlayers: configuration.maxPlayers, reservationTimeoutS: configuration.reservationTimeoutS };
  return {
    roomId,
    gameId: configuration.gameId,
    version: configuration.version,
    region,
    state: 'spawning',
    settings: {},
    maxPlayers: configuration.maxPlayers,
    players: 0,
    changeNumber: 1,
    createdAt: created.toISOString(),
    updatedAt: created.toISOString(),
    owner: standbyOwner,
    reservationTimeoutS: configuration.reservationTimeoutS,
    spawnDeadline: new Date(created.getTime() + configuration.spawnTimeoutS * 1000).toISOString(),
    serverScopes: grantableScopes(configuration.serverScopes),
    commands: [...configuration.commands],
    template: null,
    constants: { ...defaultConstants(shape), visibility: 'private' },
    properties: { joinability: 'closed', custom: {} },
    bounds: roomBoundsOf(configuration, costs.defaults),
    standby: true,
  };
}
