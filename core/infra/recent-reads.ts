import { delayWithin, timerLater, type Later } from './later';

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
 * A caller that finds an entry past half its age gets it at once, and the next read begins in
 * the background `afterTheRequestMs` later (core/infra/later.ts), or halfway to the entry's
 * end if that is sooner: a key asked for at least once per `maxAgeMs / 2` is never waited for.
 *
 * @example
 * const recent = new RecentReads<Configuration>(recentReadMaxAgeMs);
 * const configuration = await recent.read(`${gameId}#${version}`, () => store.get(gameId, version));
 */
export class RecentReads<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly monotonicNow: () => number = () => performance.now(),
    private readonly later: Later = timerLater,
  ) {}

  read(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.monotonicNow();
    const kept = this.entries.get(key);
    if (kept && now - kept.startedAt <= this.maxAgeMs) {
      if (now - kept.startedAt > this.maxAgeMs / 2 && !kept.refreshing) this.refreshAhead(key, kept, load, now);
      return kept.value;
    }
    if (!kept && this.entries.size >= maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(key, { startedAt: now, value, refreshing: false });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /**
   * The next read of a kept entry, begun a little later and put in its place only if it
   * succeeds and nothing replaced or forgot the entry meanwhile. It counts from when it began.
   */
  private refreshAhead(key: string, kept: Entry<V>, load: () => Promise<V>, now: number): void {
    kept.refreshing = true;
    this.later(
      () => {
        if (this.entries.get(key) !== kept) return;
        const startedAt = this.monotonicNow();
        const value = load();
        value.then(
          () => {
            if (this.entries.get(key) === kept) this.entries.set(key, { startedAt, value, refreshing: false });
          },
          () => {
            kept.refreshing = false;
          },
        );
      },
      delayWithin(kept.startedAt + this.maxAgeMs - now),
    );
  }

  /** Drops one key (or all): the next read of it goes to the store. */
  forget(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}

interface Entry<V> {
  readonly startedAt: number;
  readonly value: Promise<V>;
  /** A read ahead of this entry's expiry is waiting to begin or in flight. */
  refreshing: boolean;
}
