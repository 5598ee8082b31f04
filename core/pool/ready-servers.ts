import { randomInt } from 'node:crypto';
import type { Later } from '../infra/later';
import type { PoolKey } from './pool-store';

export interface ReadyServersDependencies {
  /** The pool's ready list as stored now (core/pool/pool-store.ts `readyServers`). */
  readonly read: (pool: PoolKey) => Promise<string[]>;
  readonly later: Later;
  readonly nowMs: () => number;
  /** Which of `count` known servers to offer; the tests fix it. */
  readonly pick?: (count: number) => number;
}

/** What is known of a pool is read again before use once it is this old. */
export const knownForMs = 5_000;
/** While a pool has no ready server known here, it is read again this often... */
export const watchEveryMs = 250;
/** ...this many times at most (30 s: a local refill takes about a second, an ECS task start 10–20). */
export const watchReads = 120;
/** Servers tried here are remembered this many at a time (far more than a process tries in `knownForMs`). */
const triedRemembered = 4_096;

/**
 * This process's knowledge of its pools' ready standby servers, so that a create names the
 * server it tries without a request first: each pool's ready list as last read, less every
 * server this process has offered already (each is offered once, so two creates of one
 * process never try the same server). What is known can be stale (another process took a
 * server, or it ended): the hand-over's conditional write decides, and the create tries the
 * next one (core/pool/warm-pool.ts).
 *
 * When a pool has no ready server known, its list is read again in the background until one
 * is (`watchEveryMs`, `watchReads`): the server the pool keeper starts for the one just taken
 * is then known by the next create. On Lambda the reads run only while the function does.
 */
export class KnownReadyServers {
  private readonly known = new Map<string, { readonly ids: string[]; readonly readAtMs: number }>();
  private readonly tried = new Set<string>();
  private readonly watched = new Set<string>();

  constructor(private readonly deps: ReadyServersDependencies) {}

  /**
   * A ready server of `pool` to try, never offered before by this process: from what is known
   * when that is recent and names one, else from a read now. Undefined when the pool has none.
   */
  async next(pool: PoolKey): Promise<string | undefined> {
    const name = poolName(pool);
    const known = this.known.get(name);
    const ids =
      known && known.ids.length > 0 && this.deps.nowMs() - known.readAtMs <= knownForMs
        ? known.ids
        : await this.read(pool, name);
    const roomId = ids.splice((this.deps.pick ?? anyOf)(ids.length), 1)[0];
    if (roomId !== undefined) this.remember(roomId);
    if (ids.length === 0) this.watch(pool, name);
    return roomId;
  }

  private async read(pool: PoolKey, name: string): Promise<string[]> {
    const readAtMs = this.deps.nowMs();
    const ids = (await this.deps.read(pool)).filter((id) => !this.tried.has(id));
    this.known.set(name, { ids, readAtMs });
    return ids;
  }

  private remember(roomId: string): void {
    this.tried.add(roomId);
    if (this.tried.size > triedRemembered) this.tried.delete(this.tried.values().next().value as string);
  }

  private watch(pool: PoolKey, name: string): void {
    if (this.watched.has(name)) return;
    this.watched.add(name);
    let reads = 0;
    const readAgain = (): void => {
      this.read(pool, name).then(
        (ids) => {
          if (ids.length > 0 || ++reads >= watchReads) this.watched.delete(name);
          else this.deps.later(readAgain, watchEveryMs);
        },
        // A failed read ends the watch; the next create reads for itself.
        () => this.watched.delete(name),
      );
    };
    this.deps.later(readAgain, watchEveryMs);
  }
}

function poolName(pool: PoolKey): string {
  return JSON.stringify([pool.gameId, pool.version, pool.region]);
}

/** Any of them: creates in different processes that know the same servers seldom try the same one. */
function anyOf(count: number): number {
  return count > 1 ? randomInt(count) : 0;
}
