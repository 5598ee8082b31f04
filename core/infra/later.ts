/** Runs `begin` after `delayMs`, without keeping the process alive for it. */
export type Later = (begin: () => void, delayMs: number) => void;

export const timerLater: Later = (begin, delayMs) => void setTimeout(begin, delayMs).unref();

/**
 * How long background work that a request found due (a read ahead, a lease renewal) waits
 * before it begins. The request goes on to its own reads and writes, which it waits for; work
 * begun beside them slowed them, and it is not needed for seconds yet. Measured: the warm
 * creates that carried the two reads ahead of the configuration and the regions took about
 * 3 ms longer, in the same bench run, than those that deferred them.
 */
export const afterTheRequestMs = 200;

/**
 * The delay of background work that renews something with `lifeLeftMs` left: `afterTheRequestMs`,
 * or halfway to its end if that is sooner, so it still lands before the end.
 */
export function delayWithin(lifeLeftMs: number): number {
  return Math.min(afterTheRequestMs, lifeLeftMs / 2);
}
