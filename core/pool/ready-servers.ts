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
/**
 * A server tried here is not offered again for this long. One taken leaves the list within a
 * second. One still listed after this is one whose hand-over failed with an error, not to
 * another create: its game may have been sent `assign`, so the create that next wins it is
 * answered -32007 and ends it (core/pool/warm-pool.ts), where never offering it again would
 * keep it in the pool unused.
 */
export const triedForMs = 60_000;
/** At most this many tried servers are remembered (far more than a process tries in a minute). */
const triedRemembered = 4_096;

/**
 * This process's knowledge of its pools' ready standby servers, so that a create names the
 * server it tries without a request first: each pool's ready list as last read, less every
 * server this process has offered in the last `triedForMs` (so two creates of one process
 * never try the same server). What is known can be stale (another process took a
 * server, or it ended): the hand-over's conditional write decides, and the create tries the
 * next one (core/pool/warm-pool.ts).
 *
 * When a pool has no ready server known, its list is read again in the background until one
 * is (`watchEveryMs`, `watchReads`): the server the pool keeper starts for the one just taken
 * is then known by the next create. On Lambda the reads run only while the function does.
 */
export class KnownReadyServers {
  private readonly known = new Map<string, { readonly ids: string[]; readonly readAtMs: number }>();
  /** Room id → when it was offered. */
  private readonly tried = new Map<string, number>();
  private readonly watched = new Set<string>();

  constructor(private readonly deps: ReadyServersDependencies) {}

  /**
   * A ready server of `pool` to try, not offered by this process in the last `triedForMs`:
   * from what is known when that is recent and names one, else from a read now. Undefined
   * when the pool has none.
   */
  async next(pool: PoolKey): Promise<string | undefined> {
    const name = poolName(pool);
    const known = this.known.get(name);
    const ids =
      known && known.ids.length > 0 && this.deps.nowMs() - known.readAtMs <= knownForMs
        ? known.ids
        : await this.read(pool, name);
    // Another create of this process may have been offered one of them while this one read.
    this.dropTried(ids, this.deps.nowMs());
    const roomId = ids.splice((this.deps.pick ?? anyOf)(ids.length), 1)[0];
    if (roomId !== undefined) this.remember(roomId);
    if (ids.length === 0) this.watch(pool, name);
    return roomId;
  }

  private async read(pool: PoolKey, name: string): Promise<string[]> {
    const readAtMs = this.deps.nowMs();
    const ids = this.dropTried(await this.deps.read(pool), readAtMs);
    this.known.set(name, { ids, readAtMs });
    return ids;
  }

  /** `ids` less (in place) those offered here within `triedForMs` of `nowMs`. */
  private dropTried(ids: string[], nowMs: number): string[] {
    for (let at = ids.length - 1; at >= 0; at--) {
      const offeredAt = this.tried.get(ids[at] ?? '');
      if (offeredAt !== undefined && nowMs - offeredAt < triedForMs) ids.splice(at, 1);
    }
    return ids;
  }

  private remember(roomId: string): void {
    // Re-inserted, so the map stays in the order of offering and the oldest goes first.
    this.tried.delete(roomId);
    this.tried.set(roomId, this.deps.nowMs());
    if (this.tried.size > triedRemembered) this.tried.delete(this.tried.keys().next().value as string);
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
