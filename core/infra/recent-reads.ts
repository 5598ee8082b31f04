/**
 * How old a configuration or the fleet's regions may be when a create uses them. Both change
 * only by an admin's hand; a change made in another process (another Lambda instance) reaches
 * creates within this bound, one made through this process at once.
 */
export const recentReadMaxAgeMs = 5_000;

/** Entries kept at most; past it the memory starts over (keys are configurations, not players). */
const maxEntries = 1_000;

/**
 * A per-process memory of reads, each served for at most `maxAgeMs` after the read began, one
 * read in flight per key. A failed read is not kept: the next call reads again. The clock is
 * monotonic, so a jump of the wall clock neither ages nor freshens an entry.
 *
 * @example
 * const recent = new RecentReads<Configuration>(recentReadMaxAgeMs);
 * const configuration = await recent.read(`${gameId}#${version}`, () => store.get(gameId, version));
 */
export class RecentReads<V> {
  private readonly entries = new Map<string, { readonly startedAt: number; readonly value: Promise<V> }>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  read(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.monotonicNow();
    const kept = this.entries.get(key);
    if (kept && now - kept.startedAt <= this.maxAgeMs) return kept.value;
    if (!kept && this.entries.size >= maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(key, { startedAt: now, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** Drops one key (or all): the next read of it goes to the store. */
  forget(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
