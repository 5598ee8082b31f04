import { maxSessionMembers } from './session-model';

/**
 * The room item's byte budget. A room is ONE DynamoDB item (core/rooms/document.ts), and
 * DynamoDB refuses any write that would make an item larger than 400 KB: past that, joins,
 * leaves and the game's `joined` could no longer be written. So every part of the item that a
 * player can make grow has a bound, and the bounds add up to less than the budget:
 *
 * | part                 | bound                                                        |
 * | -------------------- | ------------------------------------------------------------ |
 * | the room's own fields| `roomFieldsBytes` (ids, settings ≤ 4 KB of JSON, constants' and properties' custom ≤ 2 KB each, serverScopes, commands) |
 * | `members`            | `maxSessionMembers` (the free-slot condition) × `memberBytes` |
 * | `gone`               | the newest `tombstones` `left` tombstones, each ≤ `tombstoneBytes` |
 * | `host`, `saved`      | `arbiterBytes`: the arbiter (its epoch, account, one unreachable report per member) and its saved state (≤ `savedStateBytes` of JSON) |
 *
 * A member is bounded by what enters it: an account of at most `accountBytes`, the scopes the
 * room's server can use (`storedScopes`), its own properties (≤ 512 B of JSON, checked by the
 * PATCH schema) and its confirmation (`u`, `a`, `b`; `b` repeats neither scopes nor
 * properties). The join checks the member it writes (`memberBudgetIssue`), so the only write
 * that adds a member cannot exceed its share; the unit tests pin that the worst case of every
 * part fits (test/unit/core/rooms/item-budget.test.ts). Only a `large` session holds more than
 * `maxSessionMembers`, and it keeps them as items of their own (core/rooms/large-members.ts):
 * every create refuses a room of more without it (core/rooms/create-resolution.ts
 * `assertSessionSizeAllowed`), a standby room takes no joins, and a standby is never handed to
 * a large session.
 */
export const roomItemBudget = {
  /** DynamoDB's limit is 409,600 B; the rest is headroom for its own accounting. */
  itemBytes: 384 * 1024,
  roomFieldsBytes: 48 * 1024,
  maxMembers: maxSessionMembers,
  /**
   * One member's entry: its account (the map key) and its fields. The largest member the
   * schemas allow takes about 2.3 KB (test/unit/core/rooms/item-budget.test.ts).
   */
  memberBytes: 2.5 * 1024,
  /** The longest account that can hold a slot (OpenID Connect caps `sub` at 255 ASCII characters). */
  accountBytes: 255,
  /** `left` tombstones a room keeps (the newest ones; each also lapses after an hour). */
  tombstones: 128,
  /** One tombstone: the key hash (22 B) → `<ms> <request id ≤ 128>`. */
  tombstoneBytes: 192,
  /** A member's stored scopes: at most this many, each at most `scopeLength` characters, `scopeBytes` in all. */
  scopeCount: 32,
  scopeLength: 64,
  scopeBytes: 1024,
  /** The arbiter's saved state: its JSON text (core/rooms/saved-state.ts). */
  savedStateBytes: 16 * 1024,
  /** `host` (with a report from every other member) and `saved` (its text and bookkeeping). */
  arbiterBytes: 44 * 1024,
} as const;

/**
 * The scopes a reservation stores: only those the room's `serverScopes` also hold, because
 * their one use is the ceiling of the token `joined` returns, which never carries a scope
 * outside `serverScopes` (core/auth/token-model.ts `joinedTokenScopes`). A room without
 * `serverScopes` (peer-hosted sessions, older rooms) stores none. Each scope once, in the
 * player's order, at most `scopeCount` of them and `scopeBytes` of names in all; a scope
 * that would pass that cap is left out (only a configuration with more than 1 KB of
 * `serverScopes` can reach it). A player's token with many scopes is never refused for it.
 */
export function storedScopes(scopes: readonly string[], serverScopes: readonly string[] | undefined): string[] {
  const ceiling = new Set(serverScopes ?? []);
  const kept: string[] = [];
  let bytes = 0;
  for (const scope of new Set(scopes)) {
    if (!ceiling.has(scope) || scope.length > roomItemBudget.scopeLength) continue;
    const size = Buffer.byteLength(scope);
    if (kept.length === roomItemBudget.scopeCount || bytes + size > roomItemBudget.scopeBytes) break;
    kept.push(scope);
    bytes += size;
  }
  return kept;
}

/**
 * Why this member may not be written (a sentence for the caller), or undefined if it fits
 * its share of the room item.
 */
export function memberBudgetIssue(account: string, member: object): string | undefined {
  const accountBytes = Buffer.byteLength(account);
  if (accountBytes > roomItemBudget.accountBytes) {
    return `an account name of ${accountBytes} bytes cannot hold a slot; the limit is ${roomItemBudget.accountBytes}`;
  }
  const bytes = mapEntryBytes(account, member);
  if (bytes > roomItemBudget.memberBytes) {
    return `the member would take ${bytes} bytes of the room's item; a member may take ${roomItemBudget.memberBytes}`;
  }
  return undefined;
}

/** One entry of a map (`members`, `gone`) as DynamoDB counts it: its name, its value, 1 B. */
export const mapEntryBytes = (name: string, value: unknown): number =>
  Buffer.byteLength(name) + attributeValueBytes(value) + 1;

/**
 * The size DynamoDB counts for an item: each attribute's name plus its value
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 */
export function itemBytes(item: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value !== undefined) bytes += Buffer.byteLength(name) + attributeValueBytes(value);
  }
  return bytes;
}

/**
 * One attribute value's size by DynamoDB's rules: strings and binaries their bytes, numbers 1 B
 * per two significant digits plus 1 (plus 1 if negative, to err large), null and booleans 1 B,
 * lists and maps 3 B plus 1 B per element plus the elements (and, for maps, their names).
 */
export function attributeValueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return numberBytes(value);
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, v) => sum + attributeValueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, v) => sum + 1 + attributeValueBytes(v), 0);
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, v] of Object.entries(value)) if (v !== undefined) bytes += mapEntryBytes(name, v);
    return bytes;
  }
  return 0;
}

function numberBytes(value: number): number {
  if (value === 0) return 2;
  const [mantissa = ''] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '').length;
  return Math.ceil(digits / 2) + 1 + (value < 0 ? 1 : 0);
}
