import { LRUCache } from 'lru-cache';

/**
 * What a process may keep in memory, and for how long. Deployed, every Lambda instance is a
 * process of its own: an entry is either immutable or signed (kept until evicted), or a read
 * whose staleness is bounded by its kind's `ttlMs` here. Nothing kept here decides who wins a
 * slot, a server or an admission: a conditional write does.
 */
export const cachedKinds = {
  /** A verified access token: signed, so it cannot change; bounded by the key rotation trust. */
  verifiedToken: { ttlMs: 30_000 },
  /** A room's constants (core/rooms): immutable once the room is ready. */
  roomConstants: { ttlMs: 10 * 60_000 },
  /** A game-server configuration: an admin's change reaches every process within this. */
  configuration: { ttlMs: 1_000 },
  /**
   * The fleet's regions, as a create from the warm pool ranks them: they change only by an
   * admin's hand. Hosts are read consistently; a slot's conditional write judges their health.
   */
  fleet: { ttlMs: 1_000 },
  /** An account's ban (or its absence): a ban placed anywhere takes effect within this. */
  ban: { ttlMs: 1_000 },
  /** A warm pool's list of ready servers: a hint only, a conditional take decides. */
  readyServers: { ttlMs: 1_000 },
} as const satisfies Record<string, { readonly ttlMs: number }>;

export type CachedKind = keyof typeof cachedKinds;

interface Entry {
  readonly value: Promise<unknown>;
}

/**
 * One bounded TTL cache per process, held on `Platform`, for the kinds above. A read in
 * flight is shared by every caller of its key; a failed read is not kept.
 *
 * @example
 * const configuration = await cache.read('configuration', `${gameId}#${version}`, () => store.get(gameId, version));
 */
export class PlatformCache {
  private readonly entries: LRUCache<string, Entry>;

  /** `nowMs`: a monotonic clock other than `performance.now` (a test moving time instead of waiting). */
  constructor(options: { readonly maxEntries?: number; readonly nowMs?: () => number } = {}) {
    const { nowMs } = options;
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries ?? 50_000,
      ttl: 60_000,
      // lru-cache rounds its clock to 1 ms of real time; a test's clock must be read on every check.
      ...(nowMs ? { perf: { now: nowMs }, ttlResolution: 0 } : {}),
    });
  }

  read<V>(kind: CachedKind, key: string, load: () => Promise<V>): Promise<V> {
    const id = `${kind}#${key}`;
    const kept = this.entries.get(id);
    if (kept) return kept.value as Promise<V>;
    const value = load();
    const entry: Entry = { value };
    this.entries.set(id, entry, { ttl: cachedKinds[kind].ttlMs });
    value.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
    return value;
  }

  /** A value this process learned itself (it wrote it, or verified it). */
  remember<V>(kind: CachedKind, key: string, value: V): void {
    this.entries.set(`${kind}#${key}`, { value: Promise.resolve(value) }, { ttl: cachedKinds[kind].ttlMs });
  }

  /** The kept value, if any, without loading. */
  peek<V>(kind: CachedKind, key: string): Promise<V> | undefined {
    return this.entries.get(`${kind}#${key}`)?.value as Promise<V> | undefined;
  }

  /** This process changed the value: the next read loads it. */
  forget(kind: CachedKind, key: string): void {
    this.entries.delete(`${kind}#${key}`);
  }
}
