import { grantableScopes } from '../auth/token-model';
import type { GameServerConfiguration } from '../gameservers/configuration';
import { NoHealthyHostError } from '../gameservers/errors';
import type { Spawner } from '../gameservers/spawner';
import { childLogger } from '../infra/logger';
import type { Placement } from '../placement/placement';
import { roomBoundsOf } from '../rooms/cost-bounds';
import type { RoomCosts } from '../rooms/create';
import type { Room } from '../rooms/model';
import type { RoomStore } from '../rooms/store';
import type { SessionRead } from '../sessions/store';
import { defaultConstants } from '../sessions/model';
import type { AssignCall, Assignment } from './assign';
import type { HandOver, PoolKey, PoolStore, StandbyServer } from './pool-store';

/** The owner of a standby room: no account can be called this (accounts never contain '@'). */
export const standbyOwner = '@standby';

/** The game's answer to `assign`, as the sidecar relayed it. */
export type AssignOutcome = { readonly accepted: true } | { readonly accepted: false; readonly detail: string };

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
}

const log = childLogger('warm-pool');

/** How many ready standby servers one create tries before it starts a server cold. */
const takeAttempts = 3;

/** Past any create's hand-over (its assign waits 5 s at most, its request 30 s). */
export const lostHandOverMs = 60_000;

/**
 * The warm pool: per configuration with `standby: N` and per region, N game servers started
 * and `inited` ahead of demand. Each is a room of its own (its id, token, sidecar keys and
 * reply queue are made for it as for any room) that is nobody's yet: `standby`, closed to
 * joins, in no listing. A create takes one (core/pool/pool-store.ts `take`), which turns it
 * into the creator's room in one write, and hands the game its settings with `assign`. The
 * pool keeper starts the replacement.
 */
export class WarmPool {
  constructor(private readonly deps: WarmPoolDependencies) {}

  /**
   * Takes the oldest ready standby server of `region`'s pool and hands it over: popped from
   * the pool's ready list (one conditional write: no other create gets it), then the game gets
   * `assign` and, once that is sent, its room becomes the creator's (`handOver`, a conditional
   * write on the room) while the game answers: the hand-over's write is not a step before the
   * round trip to the game, nor beside the send that starts it.
   * A room that ended since it was pooled fails its hand-over; its `assign` is abandoned and
   * the next ready server is popped. Undefined when none could be taken.
   */
  async take(
    configuration: GameServerConfiguration,
    region: string,
    handOver: HandOver,
  ): Promise<{ session: SessionRead; outcome: AssignOutcome } | undefined> {
    const key: PoolKey = { gameId: configuration.gameId, version: configuration.version, region };
    for (let attempt = 0; attempt < takeAttempts; attempt++) {
      const roomId = await this.deps.pool.pop(key);
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
      if (session) return { session, outcome };
      log.info('a popped standby server had ended; taking the next', { roomId, gameId: key.gameId, region });
    }
    return undefined;
  }

  /**
   * Brings the region's pool to exactly `standby` servers (ready or starting): drops entries
   * whose room ended, starts the missing ones, and ends ready ones beyond the number (left
   * when `standby` was lowered). The pool keeper runs it (lambdas/schedule/pool-keeper.ts),
   * one run at a time; a create never starts a server for the pool.
   */
  async refill(configuration: GameServerConfiguration, region: string): Promise<number> {
    const wanted = configuration.standby ?? 0;
    const key: PoolKey = { gameId: configuration.gameId, version: configuration.version, region };
    const servers = await this.deps.pool.servers(key);
    const kept: StandbyServer[] = [];
    for (const server of servers) {
      if (!(await this.stillStandby(server))) await this.deps.pool.remove(key, server.roomId);
      else if (server.state === 'handedOut' && (await this.lostInHandOver(key, server)))
        await this.retire(key, server.roomId);
      else kept.push(server);
    }
    const extra = kept.filter((s) => s.state === 'ready').slice(0, Math.max(0, kept.length - wanted));
    for (const server of extra) await this.retire(key, server.roomId);
    const missing = Math.max(0, wanted - kept.length);
    const started = await Promise.all(Array.from({ length: missing }, () => this.startStandby(configuration, region)));
    return started.filter(Boolean).length;
  }

  /** Ends one pooled server nobody took: its pool entry first, so no create takes it meanwhile. */
  private async retire(key: PoolKey, roomId: string): Promise<void> {
    await this.deps.pool.remove(key, roomId);
    const room = await this.deps.rooms.find(roomId);
    if (!room?.standby) return;
    const closed = await this.deps.rooms.markClosed(roomId, this.deps.now());
    if (closed.applied && room.placement) await this.deps.spawner.stop(room.placement.taskId, 'pool-shrunk');
    log.info('standby server retired', { roomId, gameId: key.gameId, region: key.region });
  }

  /**
   * A server popped for a create whose room is still standby long after: that create died
   * between the pop and the hand-over. The first sighting is noted; one older than
   * `lostHandOverMs` is lost. It is retired, never put back: a create still handing it over
   * would then race a second one with its `assign`, while ending it only races the hand-over's
   * conditional write, which one of them wins.
   */
  private async lostInHandOver(key: PoolKey, server: StandbyServer): Promise<boolean> {
    const now = this.deps.now();
    if (!server.handedOutSeenAt) {
      await this.deps.pool.noteHandedOut(key, server.roomId, now);
      return false;
    }
    return now.getTime() - Date.parse(server.handedOutSeenAt) > lostHandOverMs;
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
      log.warn('standby server could not start', { roomId, error: error as Error });
      await deps.rooms.markFailed(roomId, 'spawn-failed', deps.now()).catch(() => undefined);
      await deps.pool.remove(key, roomId).catch(() => undefined);
      await deps.costs.slots.release(roomId).catch(() => undefined);
      return undefined;
    }
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
