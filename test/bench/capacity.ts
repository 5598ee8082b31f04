import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * What DynamoDB bills and what a caller waits for, computed from the requests an operation
 * made: pure functions on intervals and items, so they are tested without a table.
 */

export interface Interval {
  readonly start: number;
  readonly end: number;
}

/**
 * The number of requests on the critical path: the longest chain of requests each of which
 * started after the previous one had answered. Requests sent side by side count once; a
 * request that had to wait for another's answer adds a round trip.
 */
export function criticalPath(intervals: readonly Interval[]): number {
  const byStart = [...intervals].sort((a, b) => a.start - b.start || a.end - b.end);
  const chain: number[] = [];
  let longest = 0;
  for (const [i, current] of byStart.entries()) {
    let before = 0;
    for (let j = 0; j < i; j++) {
      const earlier = byStart[j] as Interval;
      if (earlier.end <= current.start) before = Math.max(before, chain[j] as number);
    }
    chain.push(before + 1);
    longest = Math.max(longest, before + 1);
  }
  return longest;
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** About one byte per two significant digits, plus one (leading and trailing zeros do not count). */
function numberSize(text: string): number {
  const digits = text
    .replace(/^[+-]/, '')
    .replace(/[eE][+-]?\d+$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** The size DynamoDB counts for one attribute value, by its published rules. */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  // A list or map: 3 bytes however full, and 1 byte more per element.
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueSize(element), 0);
  return 0;
}

/** An item's size: each attribute's name (UTF-8) and value. */
export function itemSize(item: Readonly<Record<string, AttributeValue>>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

export type Consistency = 'strong' | 'eventual' | 'transactional';

/** Write capacity units for one item of `bytes`: 1 per KB begun (at least 1), doubled in a transaction. */
export function writeUnits(bytes: number, transactional = false): number {
  return Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);
}

/**
 * Read capacity units for `bytes` read in one unit of rounding (one item of a GetItem, or a
 * Query's whole page): 1 per 4 KB begun (at least 1) strongly consistent, half that
 * eventually consistent, twice that in a transaction.
 */
export function readUnits(bytes: number, consistency: Consistency): number {
  const blocks = Math.max(1, Math.ceil(bytes / 4096));
  return blocks * (consistency === 'eventual' ? 0.5 : consistency === 'transactional' ? 2 : 1);
}

/** What one run of an operation cost: its round trips in a row, its requests and their capacity. */
export interface RequestTally {
  /** Requests on the critical path (`criticalPath`). */
  readonly sequential: number;
  readonly requests: number;
  readonly rcu: number;
  readonly wcu: number;
}

export function tally(requests: readonly (Interval & { readonly rcu: number; readonly wcu: number })[]): RequestTally {
  return {
    sequential: criticalPath(requests),
    requests: requests.length,
    rcu: requests.reduce((sum, r) => sum + r.rcu, 0),
    wcu: requests.reduce((sum, r) => sum + r.wcu, 0),
  };
}
