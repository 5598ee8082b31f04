import type { Later } from '../../core/infra/later';

/**
 * A `Later` (core/infra/later.ts) that holds each piece of background work until the test
 * begins it, and records the delay it asked for.
 */
export function heldLater() {
  const held: { begin: () => void; delayMs: number }[] = [];
  const later: Later = (begin, delayMs) => void held.push({ begin, delayMs });
  return {
    later,
    delays: () => held.map((h) => h.delayMs),
    beginAll: () => held.splice(0).forEach((h) => h.begin()),
  };
}
