/** How a wait for an answer ended. */
export type Settlement<T> =
  | { readonly kind: 'answered'; readonly value: T }
  | { readonly kind: 'timeout' }
  /** The controller is stopping: nobody will answer any more. */
  | { readonly kind: 'cancelled' };

/**
 * What became of an answer: it settled a wait, it repeats an answer already applied
 * (SQS delivers at least once), or nothing waits for it (never asked, or timed out).
 */
export type SettleOutcome = 'settled' | 'duplicate' | 'unknown';

interface Pending<T> {
  readonly resolve: (settlement: Settlement<T>) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Waits keyed by a correlation id, each with its own timeout. An answer settles its wait
 * once; a second answer with the same id is recognised as a duplicate and changes nothing.
 *
 * @example
 * const waits = new Correlations<string, Reply>();
 * const answer = waits.wait(correlationId, 20_000); // then send the request
 * waits.settle(correlationId, reply); // 'settled'; the same reply again: 'duplicate'
 */
export class Correlations<K, T> {
  private readonly pending = new Map<K, Pending<T>>();
  /** Recently answered ids, oldest first (a Set iterates in insertion order). */
  private readonly answered = new Set<K>();

  constructor(private readonly rememberAnswered = 4096) {}

  get waiting(): number {
    return this.pending.size;
  }

  /** Register before sending the request, so an answer that comes back at once is not lost. */
  wait(id: K, timeoutMs: number): Promise<Settlement<T>> {
    if (this.pending.has(id) || this.answered.has(id)) {
      return Promise.reject(new Error('A correlation id must be fresh for every request.'));
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ kind: 'timeout' });
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
    });
  }

  settle(id: K, value: T): SettleOutcome {
    const waiting = this.pending.get(id);
    if (!waiting) return this.answered.has(id) ? 'duplicate' : 'unknown';
    clearTimeout(waiting.timer);
    this.pending.delete(id);
    this.remember(id);
    waiting.resolve({ kind: 'answered', value });
    return 'settled';
  }

  /** Gives up one wait (its request could not be sent): it settles as cancelled. */
  cancel(id: K): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.pending.delete(id);
    waiting.resolve({ kind: 'cancelled' });
  }

  cancelAll(): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      waiting.resolve({ kind: 'cancelled' });
    }
  }

  private remember(id: K): void {
    this.answered.add(id);
    if (this.answered.size > this.rememberAnswered) {
      const oldest = this.answered.values().next();
      if (!oldest.done) this.answered.delete(oldest.value);
    }
  }
}
