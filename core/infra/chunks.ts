/** `items` in consecutive slices of at most `size`: what a batch API (100 keys or tasks a call) takes. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
