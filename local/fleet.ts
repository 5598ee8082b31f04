import { spawn, type ChildProcess } from 'node:child_process';
import { SpawnFailedError } from '../core/gameservers/errors';
import { PortPool } from '../core/gameservers/port-pool';
import { sidecarEnvironment, type SidecarPlatformSettings } from '../core/gameservers/sidecar-launch';
import type { RunningServer, SpawnRequest, Spawner } from '../core/gameservers/spawner';
import { childLogger } from '../core/infra/logger';
import { encodeRoomKey, type SidecarKeys } from '../core/protocol/sidecar-channel';
import type { Placement } from '../core/rooms/model';
import { childEnvironment } from './child-environment';
import { currentFleetOwner, fleetOwnerVariable } from './fleet-owner';
import { withParentDeathSignal } from './parent-death';
import { RoomCgroups, type RoomCgroup } from './room-cgroups';

export interface LocalFleetSettings {
  readonly sidecar: SidecarPlatformSettings;
  /** The room's channel keys; K_room reaches the sidecar on its stdin, never its environment. */
  readonly sidecarKeys: (roomId: string) => Promise<SidecarKeys>;
  /** Builds (once) and returns the controller sidecar's entry file. */
  readonly controllerEntry: () => Promise<string>;
  readonly portPool?: PortPool;
  /** The address players use to reach local game servers. */
  readonly host?: string;
  /** Where sidecar (and game) output goes. */
  readonly output?: 'inherit' | 'ignore';
  /** SIGTERM → SIGKILL grace when a task is stopped. */
  readonly stopGraceMs?: number;
  /**
   * A sidecar died without being asked to and without its own report (killed by a signal,
   * or refused its environment): its room has no server any more. Called at once.
   */
  readonly onLost?: (
    roomId: string,
    detail: { code: number | null; signal: NodeJS.Signals | null; epoch?: number },
  ) => void;
}

interface LocalTask {
  readonly roomId: string;
  /** The local host placement chose; absent when the fleet has no hosts. */
  readonly hostId?: string;
  readonly child: ChildProcess;
  /** Every process of this server, `setsid` ones included; absent where no cgroup could be made. */
  readonly cgroup?: RoomCgroup;
  readonly ports: readonly number[];
  readonly exited: Promise<void>;
  readonly startedAt: Date;
}

const log = childLogger('local-fleet');

/**
 * The spawner of the local cloud: each room is a controller sidecar process (the same entry
 * point as the container), which starts the game as the protocol says. Each sidecar leads
 * its own process group, with its game in it, and on Linux where a cgroup hierarchy is
 * writable it also gets a cgroup of its own (local/room-cgroups.ts) that holds every process
 * the game starts, even one that leaves the group with `setsid`. When the sidecar exits,
 * however it ends, the group is killed and every process left in the cgroup too.
 */
export class LocalFleet implements Spawner {
  readonly portPool: PortPool;
  private readonly tasks = new Map<string, LocalTask>();
  /** Tasks the platform asked to stop: their exit is no news. */
  private readonly stopping = new Set<string>();
  private readonly owner = currentFleetOwner();
  /** Undefined where no cgroup hierarchy is writable (not Linux, or not permitted): process groups only. */
  private readonly cgroups: RoomCgroups | undefined;

  constructor(private readonly settings: LocalFleetSettings) {
    this.portPool = settings.portPool ?? new PortPool();
    this.cgroups = RoomCgroups.forOwner(this.owner);
  }

  /** How a server's processes are bounded: a cgroup each, or (no writable hierarchy) its process group only. */
  get containment(): 'cgroup' | 'process-group' {
    return this.cgroups ? 'cgroup' : 'process-group';
  }

  /** The directory this fleet makes its servers' cgroups in, if it makes any. */
  get cgroupDirectory(): string | undefined {
    return this.cgroups?.directory;
  }

  /** Where players reach this fleet's game servers. */
  get host(): string {
    return this.settings.host ?? '127.0.0.1';
  }

  get running(): number {
    return this.tasks.size;
  }

  /** Servers running on one local host. */
  runningOn(hostId: string): number {
    let count = 0;
    for (const task of this.tasks.values()) if (task.hostId === hostId) count++;
    return count;
  }

  /** Process groups (sidecar pids: each leads its own) of one local host's servers. */
  groupsOn(hostId: string): number[] {
    return [...this.tasks.values()].flatMap((t) => (t.hostId === hostId && t.child.pid ? [t.child.pid] : []));
  }

  /** The host each live room's server runs on. */
  get hostsByRoom(): ReadonlyMap<string, string | undefined> {
    return new Map([...this.tasks.values()].map((t) => [t.roomId, t.hostId]));
  }

  /** Process ids of live sidecars, for checks that nothing is left behind. */
  get pids(): number[] {
    return [...this.tasks.values()].flatMap((t) => (t.child.pid ? [t.child.pid] : []));
  }

  /** Ports held by each live task. */
  get placements(): { taskId: string; ports: readonly number[] }[] {
    return [...this.tasks.entries()].map(([taskId, task]) => ({ taskId, ports: task.ports }));
  }

  async spawn(request: SpawnRequest): Promise<Placement> {
    const binary = request.configuration.binary;
    if (!binary) {
      throw new SpawnFailedError(
        `${request.configuration.gameId}@${request.configuration.version} has no binary; the local fleet cannot run an image.`,
      );
    }
    const [entry, keys] = await Promise.all([
      this.settings.controllerEntry(),
      this.settings.sidecarKeys(request.roomId),
    ]);
    const ports = await this.portPool.allocate(request.configuration.ports);
    const env = childEnvironment({
      ...sidecarEnvironment(request, ports, binary, this.settings.sidecar),
      // Lets a later run find this sidecar if this process dies without stopping it.
      [fleetOwnerVariable]: this.owner,
    });
    let child: ChildProcess;
    let cgroup: RoomCgroup | undefined;
    try {
      // Under a parent-death signal: a SIGKILLed platform takes its sidecars (and so their games) with it.
      child = spawn(...withParentDeathSignal(process.execPath, [entry]), {
        env,
        detached: true,
        // stdin carries K_room: a game can read its parent's /proc/<pid>/environ and cmdline,
        // not a pipe the sidecar has drained and closed before starting it.
        stdio: ['pipe', this.settings.output ?? 'ignore', this.settings.output ?? 'ignore'],
      });
      child.stdin?.on('error', () => undefined); // A sidecar that died at once: its exit is reported below.
      // Into its cgroup before its key: the sidecar starts the game only once it has read the
      // key, so the game and all it starts are born inside.
      if (child.pid !== undefined) cgroup = this.cgroups?.contain(request.roomId, child.pid);
      child.stdin?.end(`${encodeRoomKey(keys)}\n`);
    } catch (error) {
      this.portPool.release(ports);
      throw new SpawnFailedError('The controller sidecar could not be started.', { cause: error });
    }
    // A replacement server runs beside (or after) the one it replaces: its own task id.
    const taskId = `local:${request.roomId}${(request.epoch ?? 1) > 1 ? `:e${request.epoch}` : ''}`;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.tasks.delete(taskId);
        const asked = this.stopping.delete(taskId);
        // A group member (the game) may outlive a crashed sidecar: end the group.
        killGroup(child, 'SIGKILL');
        log.info('sidecar exited', { roomId: request.roomId, code, signal });
        // Exit codes 0 and 1 follow the sidecar's own report; a signal or code 2 means none was sent.
        if (!asked && (signal !== null || code === 2)) {
          this.settings.onLost?.(request.roomId, { code, signal, epoch: request.epoch ?? 1 });
        }
        // What left the group (`setsid`) is still in the cgroup. The ports are free again only
        // then: a survivor could still hold one.
        void (cgroup?.end() ?? Promise.resolve()).then(() => {
          this.portPool.release(ports);
          resolve();
        });
      });
      child.once('error', (error) => {
        log.error('sidecar failed to start', { roomId: request.roomId, error });
        resolve();
      });
    });
    this.tasks.set(taskId, {
      roomId: request.roomId,
      ...(request.host ? { hostId: request.host.hostId } : {}),
      child,
      ...(cgroup ? { cgroup } : {}),
      ports,
      exited,
      startedAt: new Date(),
    });
    return { taskId, host: this.host, ports };
  }

  async stop(taskId: string, reason: string): Promise<void> {
    const task = this.tasks.get(taskId);
    if (!task) return;
    log.info('stopping sidecar', { roomId: task.roomId, reason });
    this.stopping.add(taskId);
    task.child.kill('SIGTERM');
    const timer = setTimeout(() => killGroup(task.child, 'SIGKILL'), this.settings.stopGraceMs ?? 5_000);
    await task.exited;
    clearTimeout(timer);
  }

  async listServers(): Promise<RunningServer[]> {
    return [...this.tasks.entries()].map(([taskId, task]) => ({
      taskId,
      roomId: task.roomId,
      startedAt: task.startedAt,
    }));
  }

  async stopAll(reason = 'shutdown'): Promise<void> {
    await Promise.all([...this.tasks.keys()].map((taskId) => this.stop(taskId, reason)));
    this.cgroups?.removeIfEmpty();
  }

  /** SIGKILLs every server's process group and cgroup members now. Synchronous: for a process 'exit' handler. */
  killNow(): void {
    for (const task of this.tasks.values()) {
      killGroup(task.child, 'SIGKILL');
      task.cgroup?.killNow();
    }
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
