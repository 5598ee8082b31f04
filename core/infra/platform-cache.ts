import { LRUCache } from 'lru-cache';

/**
 * What a process may keep in memory, and for how long. Deployed, every Lambda instance is a
 * process of its own: an entry is either immutable or signed (kept until evicted), or a read
 * whose staleness is bounded by its kind's `ttlMs` here. Nothing kept here decides who wins a
 * slot, a server or an admission: a conditional write does.
 */
const cachedKinds = {
  /** A verified access token: signed, so it cannot change; bounded by the key rotation trust. */
  verifiedToken: { ttlMs: 30_000 },
  /**
   * Where the identity provider publishes its signing keys (`jwks_uri` of its OpenID discovery
   * document, core/auth/issuer-discovery.ts): it moves only when the provider moves its key
   * set, and a move reaches every process within this. The keys themselves are fetched anew
   * on their own, shorter bound (core/auth/tokens.ts `keySetMaxAgeMs`).
   */
  issuerKeySetUrl: { ttlMs: 5 * 60_000 },
  /**
   * A game-server configuration's task definition revision registered anew from the deployed
   * template (core/gameservers/template-revisions.ts): a registered revision never changes,
   * so spawns of this process (a retried RunTask, a pool's batch) reuse it instead of
   * registering one each.
   */
  templateRevision: { ttlMs: 10 * 60_000 },
  /** A room's constants (core/rooms): immutable once the room is ready. */
  roomConstants: { ttlMs: 10 * 60_000 },
  /** A game-server configuration: an admin's change reaches every process within this. */
  configuration: { ttlMs: 1_000 },
  /**
   * The fleet's regions, as a create from the warm pool ranks them: they change only by an
   * admin's hand. Hosts are read consistently; a slot's conditional write judges their health.
   */
  fleet: { ttlMs: 1_000 },
  /**
   * An account refused by its rate-limit log until its oldest admission leaves the window
   * (core/abuse/guard.ts): an exact fact, since a full log admits nobody before then. A join
   * or create then refuses before it claims or writes anything, so an account that hammers
   * holds a room's slot for one round trip at most once per process per window. The value
   * carries its end; an entry never outlives the 60 s window.
   */
  accountRefused: { ttlMs: 60_000 },
  /**
   * An account whose join its gate refused as banned (core/abuse/guard.ts): its joins in this
   * process are refused before they claim a slot, so a banned account (which spends no
   * allowance) hammering a room's last slot holds it at most once a second per process. A ban's
   * lifting reaches such a process within this; placing one is never delayed.
   */
  accountBanned: { ttlMs: 1_000 },
  /**
   * The sequence number of an account's rate-limit log as this process last saw it: a guess
   * that lets the usual admission be one write. The log's condition decides; a wrong guess
   * costs a round trip (the failed condition returns the log). Kept while a log can matter.
   */
  rateLogSequence: { ttlMs: 5 * 60_000 },
  /**
   * A read of a room not settled yet (its server still starting, so no `roomConstants` entry),
   * shared by every join of this process that needs it within 50 ms: a stampede parked on a
   * starting room sends one read per 50 ms, not one per waiter.
   */
  unsettledRoom: { ttlMs: 50 },
  /** A warm pool's list of ready servers: a hint only, a conditional take decides. */
  readyServers: { ttlMs: 1_000 },
  /**
   * The build of a listed standby server (core/pool/warm-pool.ts): immutable, since a server
   * reports it at `inited`, before it is listed ready, and a standby room never changes
   * servers. It only narrows which servers a create tries; the take's condition decides.
   */
  standbyBuild: { ttlMs: 10 * 60_000 },
  /**
   * The deployment's sidecar envelope key (Secrets Manager), which spawns seal sidecar secrets
   * under: it changes only when an operator rotates it, and a rotation reaches every spawning
   * process within this (docs/operations.md "Rotating the sidecar envelope key").
   */
  sidecarEnvelopeKey: { ttlMs: 60_000 },
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

  /**
   * A kept value this process knows to have changed by its own write: changed in place, its
   * expiry unchanged, so the kind's staleness bound still holds for what it did not learn.
   * Nothing when no value is kept.
   */
  revise<V>(kind: CachedKind, key: string, change: (value: V) => V): void {
    const id = `${kind}#${key}`;
    const kept = this.entries.get(id);
    const ttl = this.entries.getRemainingTTL(id);
    if (!kept || !(ttl > 0)) return;
    const entry: Entry = { value: (kept.value as Promise<V>).then(change) };
    this.entries.set(id, entry, { ttl });
    entry.value.catch(() => {
      if (this.entries.get(id) === entry) this.entries.delete(id);
    });
  }

  /** This process changed the value: the next read loads it. */
  forget(kind: CachedKind, key: string): void {
    this.entries.delete(`${kind}#${key}`);
  }
}
