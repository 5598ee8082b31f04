import type { GameServerConfiguration } from './configuration';
import type { GameSettings, Placement } from './game-server';

/** Everything needed to start one room's game server and its controller sidecar. */
export interface SpawnRequest {
  readonly roomId: string;
  readonly region: string;
  /** The host placement chose (core/placement/placement.ts); absent when the fleet has no hosts. */
  readonly host?: HostTarget;
  readonly configuration: GameServerConfiguration;
  readonly roomSettings: GameSettings;
  readonly maxPlayers: number;
  /**
   * A warm-pool start (core/pool/warm-pool.ts): the game gets `standby=1` and waits for
   * `assign` before it is anyone's room.
   */
  readonly standby?: boolean;
  /** The game server's own token (`login_access_token`). */
  readonly loginAccessToken: string;
  /**
   * The latest a start may still be attempted: a spawner that must wait (ECS throttling
   * RunTask) gives up then with `NoHealthyHostError`. Absent: the configuration's spawn
   * timeout from now.
   */
  readonly startBy?: Date;
  /**
   * The room's arbiter epoch this server is started for (a replacement's is above 1): its
   * sidecar stamps it on every message, and the platform refuses those of an older epoch.
   * Absent: 1.
   */
  readonly epoch?: number;
  /** The bounds the sidecar enforces itself (core/rooms/cost-bounds.ts `sidecarBoundsOf`); absent: none. */
  readonly bounds?: SidecarRoomBounds;
}

/** A room's cost bounds as its sidecar gets them (docs/cost-bounds.md "When the sweeper fails"). */
export interface SidecarRoomBounds {
  readonly maxLifetimeS: number;
  readonly emptyGraceS: number;
  /** The longest a member stays without the game's `joined`; absent: unbounded (no empty bound in the sidecar). */
  readonly memberHoldS?: number;
}

/** Where on the fleet a server starts: a local host by id, or an ECS cluster (and capacity provider). */
interface HostTarget {
  readonly hostId: string;
  readonly ecs?: { readonly cluster: string; readonly capacityProvider?: string };
}

/**
 * Starts and stops game servers. Adapters: the local fleet (processes on this machine) and
 * ECS `RunTask`. Both throw `NoHealthyHostError` when there is no capacity and
 * `SpawnFailedError` when the start itself fails.
 */
export interface Spawner {
  spawn(request: SpawnRequest): Promise<Placement>;
  /** Ends the task (sidecar and game). Stopping an ended task is not an error. */
  stop(taskId: string, reason: string): Promise<void>;
  /** Every server the fleet runs, so the sweeper can stop those whose room is not live. */
  listServers?(): Promise<RunningServer[]>;
}

/** A running task (ECS) or sidecar process (local fleet), and the room it was started for. */
export interface RunningServer {
  readonly taskId: string;
  /** Absent: a task of the fleet that carries no room tag (never started by the platform). */
  readonly roomId?: string;
  readonly startedAt: Date;
}
