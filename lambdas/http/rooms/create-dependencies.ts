import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { runTaskQueueMs } from '../../../core/gameservers/throttled-spawner';
import type { Placement, PlacementRequest } from '../../../core/placement/placement';
import type { CreateRoomDependencies } from '../../../core/rooms/create';
import type { Platform } from '../../dependencies';
import { serverTokenMinter } from './server-token';

type Ranking = Awaited<ReturnType<Placement['rankRecent']>>;

/** What one create request adds to the platform for `createRoom`. */
export interface CreateWiring {
  readonly configuration: GameServerConfiguration;
  /** When the request came (epoch ms): the caller's wait counts from it, not from the spawn. */
  readonly startedMs: number;
  readonly placement: PlacementRequest;
  /**
   * Matchmaking's create: the bucket's room id, chosen before the create. Such a create
   * starts cold (a standby server's room has its own id); `POST /v1/rooms` adds the warm pool.
   */
  readonly roomId?: string;
  /** The region ranking the caller started beside its first reads, for this configuration. */
  readonly ranking?: Promise<Ranking>;
}

/**
 * `createRoom`'s dependencies for one request, for every handler that creates a room
 * (`POST /v1/rooms`, matchmaking's create): the platform's stores and ports, the request's
 * budget (`createWaitS` to answer, RunTask's queue to start) and its placement.
 */
export function createRoomDependencies(p: Platform, wiring: CreateWiring): CreateRoomDependencies {
  const { configuration, startedMs, roomId } = wiring;
  return {
    rooms: p.rooms,
    configuration,
    spawner: p.spawner,
    now: p.now,
    newRoomId: roomId === undefined ? p.newId : () => roomId,
    mintServerToken: serverTokenMinter(p, configuration),
    sleep: (ms) => p.clock.sleep(ms),
    answerBy: new Date(startedMs + p.config.createWaitS * 1000),
    spawnQueueBy: new Date(startedMs + runTaskQueueMs),
    costs: p.costs,
    placement: { placer: p.placement, request: wiring.placement },
    versions: versionsOf(p),
    ...(wiring.ranking ? { prefetched: { ranking: wiring.ranking } } : {}),
  };
}

/** How a join or create explains a refused build and tells the room's server (core/versions/notice.ts). */
export function versionsOf(p: Platform): NonNullable<CreateRoomDependencies['versions']> {
  return {
    components: p.protocolComponents,
    deliver: (roomId, notice, epoch) => p.deliverCommand(roomId, notice, epoch),
  };
}

/**
 * Starts the read of the configuration's ready standby servers a warm create will take from,
 * beside the create's other first reads (the account checks, the configuration, the region
 * ranking) instead of after them: it needs neither the configuration nor the region. For a
 * configuration without a pool it is one eventually consistent Query of an empty index
 * partition, the price of keeping a warm create at two requests in a row. Never rejects: the
 * take reads the list itself if this read failed.
 */
export function listStandbyAhead(
  p: Platform,
  configuration: { readonly gameId: string; readonly version: string },
): void {
  p.warmPool.listedReady(configuration).catch(() => undefined);
}
