import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { childLogger } from '../core/infra/logger';
import { fleetOwnerAlive, startTime } from './fleet-owner';

/**
 * A cgroup per local game server, where Linux lets us make one.
 *
 * A process group does not hold a game's processes: a child that calls `setsid` (a daemon,
 * `setsid sleep 600`, `nohup … &` run through a new session) leaves it and outlives every
 * `kill(-pgid)`. A cgroup does: every process forked inside it stays inside, whatever
 * session or group it makes, and `cgroup.procs` lists them all. The fleet puts each sidecar
 * into a fresh cgroup before it can start its game (the sidecar starts it only after reading
 * its key from stdin, which the fleet writes after this), and when the sidecar exits it
 * kills every process of the cgroup and removes it.
 *
 * Layout: `<hierarchy>/<this process's cgroup>/roomkeeper/<owner pid>-<owner start>/<room>.<start>`,
 * `<start>` being the sidecar's start time in clock ticks since boot. An owner directory whose
 * platform process no longer runs is an earlier run's, and `endLeftoverRoomCgroups` ends it.
 *
 * Only processes that started at or after the sidecar, and that are still members, are ever
 * killed: a game that can write cgroup files could move any process into its cgroup, but the
 * platform, DynamoDB Local, the developer's shell are older than the room; they are moved out
 * again instead. (A game that can write cgroup files can also signal those processes itself:
 * it runs as the same user; the check keeps the platform from doing it on the game's behalf.)
 *
 * Where no hierarchy is writable (macOS, a container with a read-only /sys/fs/cgroup, a
 * user without a delegated cgroup), `RoomCgroups.create` returns undefined and the fleet
 * relies on the process group alone, which a `setsid` grandchild escapes.
 */

const log = childLogger('local-fleet');

/** A cgroup hierarchy this process can make cgroups in: v1 `pids` (preferred: `pids.max` stops forks) or v2. */
interface Hierarchy {
  readonly kind: 'v1-pids' | 'v2';
  /** Where the hierarchy is mounted, and the path of its root there (not `/` inside some containers). */
  readonly mountPoint: string;
  readonly mountRoot: string;
  /** This process's own cgroup in it, as /proc/<pid>/cgroup names it. */
  readonly ownPath: string;
}

const baseName = 'roomkeeper';
/** How long `end` keeps killing and waiting for the cgroup to empty before it leaves it (logged). */
const endTimeoutMs = 3_000;

/** The cgroup path of `pid` in the hierarchy (the third field of its /proc/<pid>/cgroup line). */
function cgroupPath(pid: number | 'self', kind: Hierarchy['kind']): string | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const id = line.slice(0, first);
    const controllers = line.slice(first + 1, second).split(',');
    const path = line.slice(second + 1);
    if (kind === 'v2' ? id === '0' && controllers[0] === '' : controllers.includes('pids')) return path;
  }
  return undefined;
}

function findHierarchies(): Hierarchy[] {
  let mountinfo: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const found: Hierarchy[] = [];
  for (const line of mountinfo.split('\n')) {
    // `<id> <parent> <dev> <root> <mount point> <options> [optional…] - <fstype> <source> <super options>`
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions = ''] = after.split(' ');
    const mountRoot = fields[3];
    const mountPoint = fields[4];
    if (!mountRoot || !mountPoint) continue;
    const kind =
      fsType === 'cgroup2'
        ? 'v2'
        : fsType === 'cgroup' && superOptions.split(',').includes('pids')
          ? 'v1-pids'
          : undefined;
    if (!kind) continue;
    const ownPath = cgroupPath('self', kind);
    if (ownPath !== undefined) found.push({ kind, mountPoint, mountRoot, ownPath });
  }
  return found.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'v1-pids' ? -1 : 1));
}

/** The directory of a cgroup path of the hierarchy. */
function directoryOf(hierarchy: Hierarchy, path: string): string {
  const relative =
    hierarchy.mountRoot !== '/' && path.startsWith(hierarchy.mountRoot) ? path.slice(hierarchy.mountRoot.length) : path;
  return `${hierarchy.mountPoint}${relative === '/' ? '' : relative}`;
}

function join(path: string, name: string): string {
  return path.endsWith('/') ? `${path}${name}` : `${path}/${name}`;
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

let detected: Hierarchy | null | undefined;

/** The first hierarchy this process may make and fill cgroups in; looked up once. */
function usableHierarchy(): Hierarchy | undefined {
  if (detected !== undefined) return detected ?? undefined;
  detected = null;
  if (process.platform !== 'linux') return undefined;
  for (const hierarchy of findHierarchies()) {
    const own = directoryOf(hierarchy, hierarchy.ownPath);
    const base = join(own, baseName);
    try {
      mkdirSync(base, { recursive: true });
    } catch {
      continue;
    }
    // v2 moves a process only with write access to the common ancestor's cgroup.procs: ours.
    if (!writable(join(base, 'cgroup.procs')) || (hierarchy.kind === 'v2' && !writable(join(own, 'cgroup.procs'))))
      continue;
    detected = hierarchy;
    break;
  }
  return detected ?? undefined;
}

/** Processes listed in a cgroup (`cgroup.procs`); empty once it is gone. */
function members(directory: string): number[] {
  try {
    return readFileSync(join(directory, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One game server's cgroup: its sidecar, its game and everything they started. */
export class RoomCgroup {
  constructor(
    private readonly hierarchy: Hierarchy,
    /** The cgroup path, as /proc/<pid>/cgroup names it. */
    readonly path: string,
    /** The sidecar's start time (clock ticks since boot): nothing older is the room's. */
    private readonly notBefore: number,
  ) {}

  get directory(): string {
    return directoryOf(this.hierarchy, this.path);
  }

  /** Pids of the cgroup's processes that are the room's, and of older ones moved into it. */
  private census(): { room: number[]; foreign: number[] } {
    const room: number[] = [];
    const foreign: number[] = [];
    for (const pid of members(this.directory)) {
      const started = startTime(pid);
      // Gone, or a zombie waiting for its parent: nothing to kill.
      if (started === undefined) continue;
      // Read after the start time: a pid reused by a process elsewhere is not ours.
      if (cgroupPath(pid, this.hierarchy.kind) !== this.path) continue;
      (Number(started) >= this.notBefore ? room : foreign).push(pid);
    }
    return { room, foreign };
  }

  /** One pass: forks refused (v1 `pids.max`), every room process SIGKILLed, older ones moved out. */
  private killPass(): { room: number[]; foreign: number[] } {
    try {
      writeFileSync(join(this.directory, 'pids.max'), '0');
    } catch {
      // v2 without the pids controller: later passes catch what forks in between.
    }
    const census = this.census();
    for (const pid of census.room) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Exited since the census.
      }
    }
    if (census.foreign.length > 0) {
      log.warn('processes older than the room were in its cgroup; moved out, not killed', {
        cgroup: this.path,
        pids: census.foreign,
      });
      const own = join(directoryOf(this.hierarchy, this.hierarchy.ownPath), 'cgroup.procs');
      for (const pid of census.foreign) {
        try {
          writeFileSync(own, String(pid));
        } catch {
          // Exited since the census.
        }
      }
    }
    return census;
  }

  /**
   * SIGKILLs every process of the room still in the cgroup (detached, `setsid` or not), waits
   * until the cgroup is empty, and removes it. Bounded: a cgroup that will not empty (a
   * process stuck in the kernel) is left and logged, and removed by a later run.
   */
  async end(): Promise<void> {
    const deadline = Date.now() + endTimeoutMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
      this.killPass();
      try {
        rmdirSync(this.directory);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      }
      if (Date.now() > deadline) {
        log.warn('a game server cgroup did not empty; left for a later run', { cgroup: this.path });
        return;
      }
      await sleep(wait);
    }
  }

  /** One synchronous kill pass (for a process 'exit' handler); the cgroup is left for a later run. */
  killNow(): void {
    this.killPass();
  }
}

/**
 * The cgroups of one platform process's game servers.
 *
 * @example
 * const cgroups = RoomCgroups.forOwner(currentFleetOwner()); // undefined: no writable hierarchy
 * const group = cgroups?.contain(roomId, sidecar.pid);      // before the sidecar may start its game
 * sidecar.once('exit', () => void group?.end());
 */
export class RoomCgroups {
  private constructor(
    private readonly hierarchy: Hierarchy,
    /** This owner's directory's cgroup path. */
    private readonly ownerPath: string,
  ) {}

  /** Undefined where no cgroup hierarchy is writable: the process group is then the only bound. */
  static forOwner(owner: string): RoomCgroups | undefined {
    const hierarchy = usableHierarchy();
    if (!hierarchy) return undefined;
    return new RoomCgroups(hierarchy, join(join(hierarchy.ownPath, baseName), owner.replace(':', '-')));
  }

  /** The directory this owner's room cgroups are made in (present while one exists). */
  get directory(): string {
    return directoryOf(this.hierarchy, this.ownerPath);
  }

  /**
   * A new cgroup for `roomId` holding `pid` (the sidecar, just spawned, before it started
   * anything). Undefined when that fails (the process already exited, or the hierarchy
   * refused): the process group is then the only bound for this server.
   */
  contain(roomId: string, pid: number): RoomCgroup | undefined {
    const started = startTime(pid);
    if (started === undefined) return undefined;
    const name = `${roomId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}.${started}`;
    const group = new RoomCgroup(this.hierarchy, join(this.ownerPath, name), Number(started));
    try {
      mkdirSync(group.directory, { recursive: true });
      writeFileSync(join(group.directory, 'cgroup.procs'), String(pid));
      return group;
    } catch (error) {
      log.warn('could not put a game server in a cgroup of its own; its process group is the only bound', {
        roomId,
        error: error as Error,
      });
      void group.end();
      return undefined;
    }
  }

  /** Removes this owner's directory once it has no room cgroup left. */
  removeIfEmpty(): void {
    try {
      rmdirSync(this.directory);
    } catch {
      // Rooms still run, or it was never made.
    }
  }
}

/**
 * Ends the room cgroups of platform processes that no longer run (killed with SIGKILL, so
 * their `stop` never ran): a `setsid` grandchild of their games survived them there. Returns
 * the number of room cgroups ended.
 */
export async function endLeftoverRoomCgroups(): Promise<number> {
  const hierarchy = usableHierarchy();
  if (!hierarchy) return 0;
  const basePath = join(hierarchy.ownPath, baseName);
  let ended = 0;
  for (const owner of subdirectories(directoryOf(hierarchy, basePath))) {
    const match = /^(\d+)-(\d+)$/.exec(owner);
    if (!match || fleetOwnerAlive(`${match[1]}:${match[2]}`)) continue;
    const ownerPath = join(basePath, owner);
    for (const room of subdirectories(directoryOf(hierarchy, ownerPath))) {
      const notBefore = Number(room.slice(room.lastIndexOf('.') + 1));
      if (!Number.isSafeInteger(notBefore) || !room.includes('.')) continue;
      await new RoomCgroup(hierarchy, join(ownerPath, room), notBefore).end();
      ended++;
    }
    try {
      rmdirSync(directoryOf(hierarchy, ownerPath));
    } catch {
      // A room cgroup would not empty: logged by its `end`.
    }
  }
  if (ended > 0) log.warn('ended game server cgroups left by an earlier run', { count: ended });
  return ended;
}

function subdirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
