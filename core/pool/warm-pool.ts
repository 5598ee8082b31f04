import { deploymentOf } from '../gameservers/deployment';
import { randomInt } from 'node:crypto';
import { grantableScopes, platformOwnerPrefix } from '../auth/token-model';
import type { GameServerConfiguration } from '../gameservers/configuration';
import { NoHealthyHostError } from '../gameservers/errors';
import type { Spawner } from '../gameservers/spawner';
import { childLogger } from '../infra/logger';
import { countSpawnFailure } from '../infra/metrics';
import type { PlatformCache } from '../infra/platform-cache';
import type { Placement } from '../placement/placement';
import { roomBoundsOf, sidecarBoundsOf } from '../rooms/cost-bounds';
import type { RoomCosts, StandbyServers } from '../rooms/create';
import type { Room } from '../rooms/model';
import type { HandOver, RoomStore, SessionRead } from '../rooms/room-store';
import { defaultConstants } from '../rooms/session-model';
import type { Assignment, AssignOutcome } from './assign';
import type { ListedServer, PoolKey, PoolStore, StandbyServer } from './pool-store';

/**
 * The owner of a standby room: a reserved account name, so no caller can be it (the HTTP
 * verifier refuses every token whose `sub` the platform reserves: core/auth/token-model.ts).
 */
export const standbyOwner = `${platformOwnerPrefix}standby`;

export interface WarmPoolDependencies {
  readonly pool: PoolStore;
  readonly rooms: RoomStore;
  readonly placement: Placement;
  readonly spawner: Spawner;
  readonly costs: RoomCosts;
  readonly now: () => Date;
  readonly newRoomId: () => string;
  readonly mintServerToken: (configuration: GameServerConfiguration, roomId: string) => Promise<string>;
  /** Hands a taken standby server its room: `assign` to the game through its sidecar, and its answer. */
  readonly assign: (assignment: Assignment) => Promise<AssignOutcome>;
  /** Where the pools' ready lists are read through: kind `readyServers`, a hint of bounded staleness. */
  readonly cache: PlatformCache;
  /** Which of the listed servers (none tried yet) a take tries; the tests fix it. */
  readonly pick?: (listed: readonly string[]) => string | undefined;
}

const log = childLogger('warm-pool');

/** What a take needs of a standby server's build: its set hash, and whether its room checks builds at all. */
interface StandbyBuild {
  readonly hash?: string;
  readonly unchecked: boolean;
}

/**
 * How many listed servers one create tries before it starts a server cold. A try that loses
 * costs one write and nothing else (no game was told anything), so a create whose hint is a
 * little stale still gets a server; a pool that is really empty costs a few writes, not a wait.
 */
const takeAttempts = 3;

/**
 * The warm pool: per configuration with `standby: N` and per region, N game servers started
 * and `inited` ahead of demand. Each is a room of its own (its id, token, sidecar keys and
 * reply queue are made for it as for any room) that is nobody's yet: `standby`, closed to
 * joins, in no listing. A create takes one (`takeStandby`), which turns it into the creator's
 * room in one conditional write, and only then hands the game its settings with `assign`. The
 * pool keeper starts the replacement.
 */
export class WarmPool implements StandbyServers {
  constructor(private readonly deps: WarmPoolDependencies) {}

  /**
   * Hands the creator a ready standby server of `region`'s pool. The pool's ready list is a
   * hint (read through the process's cache, at most `readyServers` old); the take decides:
   * `handOver`, one conditional write that makes the standby room the creator's only while it
   * is still a ready standby room. Every process may list the same servers, so only the write's
   * winner sends `assign`: no game is ever told two rooms, and a create that loses tells nobody
   * anything and tries another listed server. A game that refuses its `assign` ends its server
   * (that is the game's failure, not a collision) and the create starts cold. Undefined when no
   * server could be taken.
   */
  async takeStandby(
    configuration: GameServerConfiguration,
    region: string,
    handOver: HandOver,
  ): Promise<SessionRead | undefined> {
    const key = poolKeyOf(configuration, region);
    // One read at most per create: the list it tries, shortened by each take it loses.
    let left = (await this.listedReady(configuration)).flatMap((s) => (s.region === region ? [s.roomId] : []));
    // A server of another build is never tried: its take would fail, and it is no less free for
    // creators of its own build, so it stays on this process's list.
    let listed = await this.ofBuild(left, handOver.protocol);
    for (let attempt = 0; attempt < takeAttempts; attempt++) {
      const roomId = (this.deps.pick ?? anyOf)(listed);
      if (roomId === undefined) return undefined;
      listed = listed.filter((id) => id !== roomId);
      left = left.filter((id) => id !== roomId);
      const session = await this.deps.rooms.handOver(roomId, key, handOver);
      this.forgetListed(configuration, roomId, left);
      if (session) return this.assign(key, session, handOver);
      log.info('a listed standby server was taken or had ended; trying another', { roomId, gameId: key.gameId });
    }
    return undefined;
  }

  /**
   * The ready standby servers of a configuration (every region's) as this process knows them: a
   * read at most `readyServers` old. A create handler starts it beside its other first reads,
   * before it knows the region, so the take finds it read.
   */
  async listedReady(configuration: ConfigurationRef): Promise<readonly ListedServer[]> {
    const cacheKey = cacheKeyOf(configuration);
    const listed = await this.deps.cache.read('readyServers', cacheKey, () =>
      this.deps.pool.readyServers(configuration.gameId, configuration.version),
    );
    // An empty list is not kept: a server that becomes ready is tried by the next create, not
    // up to a second later.
    if (listed.length === 0) this.deps.cache.forget('readyServers', cacheKey);
    return listed;
  }

  /**
   * The listed servers a creator of build `hash` may take (as `protocolAccepts` judges): of that
   * build, reporting none, or started with the check off. All of them without a hash. A server
   * whose build cannot be read is left out: the create starts cold rather than wait.
   */
  private async ofBuild(listed: readonly string[], hash: string | undefined): Promise<string[]> {
    if (hash === undefined) return [...listed];
    const builds = await Promise.all(listed.map((roomId) => this.buildOf(roomId).catch(() => undefined)));
    return listed.filter((_, i) => {
      const build = builds[i];
      return build !== undefined && (build.unchecked || build.hash === undefined || build.hash === hash);
    });
  }

  /** A listed server's build, read once per process (`standbyBuild`); undefined when its room is gone. */
  private buildOf(roomId: string): Promise<StandbyBuild | undefined> {
    return this.deps.cache.read('standbyBuild', roomId, async () => {
      const room = await this.deps.rooms.find(roomId);
      if (!room) return undefined;
      return { unchecked: room.protocolCheck !== undefined, ...(room.protocol ? { hash: room.protocol.h } : {}) };
    });
  }

  /**
   * `roomId` was just taken (here or elsewhere) or had ended: this process's other creates skip
   * it until the list is read again. A list the create found nothing more in is dropped
   * instead, as an empty one is.
   */
  private forgetListed(configuration: ConfigurationRef, roomId: string, left: readonly string[]): void {
    const cacheKey = cacheKeyOf(configuration);
    if (left.length === 0) this.deps.cache.forget('readyServers', cacheKey);
    else
      this.deps.cache.revise<readonly ListedServer[]>('readyServers', cacheKey, (listed) =>
        listed.filter((server) => server.roomId !== roomId),
      );
  }

  /**
   * `assign` to the server this create won, and the game's answer. The take's write already
   * took the server off the list creates read; its entry on the pool's item, which only the
   * pool keeper counts, is dropped by the keeper's next pass (it drops every entry whose room
   * is no longer a standby room), not by a third request of the create.
   */
  private async assign(key: PoolKey, session: SessionRead, handOver: HandOver): Promise<SessionRead | undefined> {
    const { room } = session;
    const outcome = await this.deps.assign({
      roomId: room.roomId,
      settings: handOver.settings,
      maxPlayers: handOver.maxPlayers,
    });
    if (outcome.accepted) return session;
    log.warn('a standby server refused its hand-over; ending it', {
      roomId: room.roomId,
      gameId: key.gameId,
      detail: outcome.detail,
    });
    await this.end(room);
    return undefined;
  }

  /** A taken server whose game refused its room: the room fails, its server stops, its slot is freed. */
  private async end(room: Room): Promise<void> {
    await this.deps.rooms.markFailed(room.roomId, 'assign-refused', this.deps.now());
    countSpawnFailure('spawn-failed', this.deps.now());
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
    const key = poolKeyOf(configuration, region);
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
    const key = poolKeyOf(configuration, region);
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
        bounds: sidecarBoundsOf(room),
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

function poolKeyOf(configuration: GameServerConfiguration, region: string): PoolKey {
  return { gameId: configuration.gameId, version: configuration.version, region };
}

/** A configuration by name: what a pool's listing is kept under, every region's together. */
export type ConfigurationRef = Pick<GameServerConfiguration, 'gameId' | 'version'>;

function cacheKeyOf(configuration: ConfigurationRef): string {
  return JSON.stringify([configuration.gameId, configuration.version]);
}

/** Any of them: creates that list the same servers (in one process or many) seldom try the same one. */
function anyOf(listed: readonly string[]): string | undefined {
  return listed.length > 1 ? listed[randomInt(listed.length)] : listed[0];
}

/** A standby start found its configuration keeping no pool any more (read after it was listed). */
class PoolNotKeptError extends Error {
  override readonly name = 'PoolNotKeptError';
  constructor(gameId: string, version: string) {
    super(`The configuration ${gameId} version ${version} keeps no warm pool any more.`);
  }
}

/** A standby server's room: nobody's, closed to joins, sized by the configuration. */
function standbyRoom(
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
    deployment: deploymentOf(configuration),
    ...(configuration.checkProtocol === false ? { protocolCheck: false as const } : {}),
    standby: true,
  };
}
