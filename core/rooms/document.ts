import { createHash, randomInt } from 'node:crypto';
import { roomItemBudget, storedScopes } from './item-budget';
import type { MemberState, SessionTimeouts } from './session-model';

/**
 * The session document: the room item (pk `ROOM#<id>`, sk `ROOM`) also holds its members.
 *
 * | attribute | shape                                   | why                                        |
 * | --------- | --------------------------------------- | ------------------------------------------ |
 * | `members` | account → `StoredMember` (a few dozen B) | slots, states, expiries, key hashes: one item, one write |
 * | `gone`    | key hash → `<ms> <request>`, the newest 128 | a redelivered `left` gets the same answer |
 * | `players` | number of entries in `members`          | the free-slot condition (`players < maxPlayers`) |
 *
 * The key hash lives in its member (`k`), so the account is stored once: "this member still
 * holds key H" is the condition `members.<account>.k = H`, and a re-keyed or removed member no
 * longer matches it. Finding the member of a key (`joined`, `left`, `abandoned`) scans the
 * members of the one read those already make. (Rooms written with the former `keys` map are
 * not read: that attribute is ignored.)
 */
export interface StoredMember {
  /** State code: 0 reserved, 1 ready, 2 active, 3 inactive. */
  readonly s: number;
  /** Since when (epoch ms) the member is in this state. */
  readonly t: number;
  /**
   * Past this instant (epoch ms) the member is removed. Absent: `t` + its state's timeout in
   * the room's constants (none if that is null), so a join's reservation does not store the
   * instant its clock and the template already give (10 B per member).
   */
  readonly e?: number;
  /**
   * A reservation made while the room was spawning: its timeout (ms) starts when the room
   * became ready (`readyAt`), not before: the player cannot connect to a server that is not up.
   */
  readonly p?: number;
  /** The stored hash of the member's current registration key (`storedKeyHash`); absent: none. */
  readonly k?: string;
  /**
   * The player's scopes when they joined that the room's `serverScopes` also hold (only if
   * any, capped: core/rooms/item-budget.ts `storedScopes`): the ceiling of the token
   * `joined` returns. Stored once: the pre-confirmation copy `b` leaves it out.
   */
  readonly c?: readonly string[];
  /** The `joined` request that used the current key (keys are single use). */
  readonly u?: string;
  /** When `joined` confirmed the member (epoch ms): the token's `iat`, so a repeat is identical. */
  readonly a?: number;
  /**
   * The reservation as it was before `joined` confirmed it, so `abandoned` can restore it:
   * its state, clock and expiry only (`preConfirmation`); the key, scopes and properties stay
   * the member's own.
   */
  readonly b?: StoredMember;
  /** The member's own `properties.custom`, written by that member alone (absent: `{}`). */
  readonly q?: Record<string, unknown>;
  /**
   * The member number (0..2^31-1), drawn by the platform when the reservation is made: the
   * arbiter's preferred successor is the active member with the lowest. Drawn at random, so a
   * newcomer cannot choose to come first. Absent on older members: they sort last.
   */
  readonly n?: number;
  /**
   * When (epoch ms) the member's last socket to the session closed, while it was active;
   * cleared when a socket of it is heard again. With the template's `disconnectedMs` it makes
   * the member inactive without a write (`memberAt`).
   */
  readonly d?: number;
  /**
   * The set hash of the client build the member joined with (its `protocol.hash`, docs/versions.md),
   * if it sent one: `joined` refuses the member when the room's server is another build (a
   * reservation answered before the server reported its own hash is checked there).
   */
  readonly v?: string;
  /**
   * The account that invited this member (`POST /v1/rooms/{roomId}/invites`): its reservation
   * was made for it, with a fixed expiry `e`. An `inviteOnly` session admits exactly the
   * members that carry it (core/rooms/room-conditions.ts `joinabilityAdmits`).
   */
  readonly i?: string;
}

export interface SessionDocument {
  readonly members: Readonly<Record<string, StoredMember>>;
  readonly gone: Readonly<Record<string, string>>;
}

/** The room fields the rules need besides the members. */
export interface RoomClock {
  readonly state: string;
  /** When `inited` made the room ready (ISO); pending reservations count from here. */
  readonly readyAt?: string;
  readonly updatedAt?: string;
  /** The template's timeouts; absent (rooms made before templates): the default template's. */
  readonly constants?: { readonly timeouts: SessionTimeouts };
  /** The default template's `reservedMs`, in seconds. */
  readonly reservationTimeoutS: number;
}

/** The member timeouts the room's constants set (core/rooms/session-model.ts `defaultConstants`). */
function roomTimeouts(room: Pick<RoomClock, 'constants' | 'reservationTimeoutS'>): SessionTimeouts {
  if (room.constants) return room.constants.timeouts;
  if (!Number.isFinite(room.reservationTimeoutS)) {
    throw new SessionDocumentCorruptError('the room has neither constants nor reservationTimeoutS');
  }
  return { reservedMs: room.reservationTimeoutS * 1000, readyMs: null, inactiveMs: null, sessionEmptyMs: null };
}

const stateCodes: Record<MemberState, number> = { reserved: 0, ready: 1, active: 2, inactive: 3 };
const codeStates: readonly MemberState[] = ['reserved', 'ready', 'active', 'inactive'];

export const memberStateCode = (state: MemberState): number => stateCodes[state];

export function memberStateOf(code: number): MemberState {
  const state = codeStates[code];
  if (state === undefined) throw new SessionDocumentCorruptError(`unknown member state code ${code}`);
  return state;
}

/** A document written by no code path of ours: a bug or a hand edit, never a client's fault. */
export class SessionDocumentCorruptError extends Error {
  override readonly name = 'SessionDocumentCorruptError';
}

/**
 * The stored form of a registration key's hash: the first 128 bits of its SHA-256, base64url
 * (22 characters). Accepts the full hex SHA-256 (the sidecar's `abandoned` carries it).
 */
export function storedKeyHash(sha256Hex: string): string {
  return Buffer.from(sha256Hex.slice(0, 32), 'hex').toString('base64url');
}

/** The stored hash of a plain registration key. */
export function storedHashOfKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest().subarray(0, 16).toString('base64url');
}

/** The member's timeout in its state, as the template sets it (`null`: never). */
export function timeoutOf(state: MemberState, timeouts: SessionTimeouts): number | null {
  switch (state) {
    case 'reserved':
      return timeouts.reservedMs;
    case 'ready':
      return timeouts.readyMs;
    case 'inactive':
      return timeouts.inactiveMs;
    case 'active':
      return null;
  }
}

/**
 * The member entering `state` at `now`: its clock restarts and the state's timeout, if any,
 * becomes its expiry. The only way a member changes state, so one write makes one transition.
 */
export function enterState(
  state: MemberState,
  now: number,
  timeouts: SessionTimeouts,
  carry: Pick<StoredMember, 'c' | 'k'> = {},
): StoredMember {
  const timeout = timeoutOf(state, timeouts);
  return {
    s: stateCodes[state],
    t: now,
    ...(timeout === null ? {} : { e: now + timeout }),
    ...(carry.k === undefined ? {} : { k: carry.k }),
    ...(carry.c && carry.c.length > 0 ? { c: carry.c } : {}),
  };
}

/**
 * A new reservation: pending in a spawning room (its clock starts at `inited`), else timed
 * from now. `timeouts` are the room's own, so its expiry is not stored (`t` + `reservedMs`).
 * The player's scopes enter the room here, and only those its server can use
 * (`storedScopes`): the room's `serverScopes` are their ceiling.
 */
export function newReservation(
  room: Pick<RoomClock, 'state'> & { readonly serverScopes?: readonly string[] },
  now: number,
  timeouts: SessionTimeouts,
  scopes: readonly string[],
  n: number = newMemberNumber(),
): StoredMember {
  const kept = storedScopes(scopes, room.serverScopes);
  const carry = kept.length > 0 ? { c: kept, n } : { n };
  if (room.state !== 'spawning') return { s: 0, t: now, ...carry };
  return { s: 0, t: now, ...(timeouts.reservedMs === null ? {} : { p: timeouts.reservedMs }), ...carry };
}

/** The largest member number plus one: numbers fit a DynamoDB number and a JSON integer alike. */
const memberNumberBound = 2 ** 31;

/** A member number (`StoredMember.n`): uniform, from a CSPRNG, so nobody can predict or pick one. */
export const newMemberNumber = (): number => randomInt(0, memberNumberBound);

/**
 * What `joined` keeps of a reservation in `b`: only what `abandoned` puts back (state, clock,
 * expiry). The key, the scopes and the member's properties are the member's own and stay on
 * it, so a confirmed member stores its scopes once.
 */
export function preConfirmation(member: StoredMember): StoredMember {
  return {
    s: member.s,
    t: member.t,
    ...(member.e === undefined ? {} : { e: member.e }),
    ...(member.p === undefined ? {} : { p: member.p }),
  };
}

/**
 * How long a `left` tombstone answers a redelivery, and how many a room keeps: the newest
 * `roomItemBudget.tombstones`, none older than this. A redelivery past either bound finds no
 * tombstone and no member holding the key (a player who joins again gets a new key), so it
 * is answered "key rejected" and removes nobody.
 */
export const goneKeptMs = 60 * 60 * 1000;

/** The tombstone of a `left`: when, and which request (its redelivery gets the same answer). */
export const tombstoneOf = (now: number, requestId: string): string => `${now} ${requestId}`;

/** The request a tombstone names (tombstones of older rooms also carry the account after it). */
export function tombstoneRequest(tomb: string): string {
  return /^\d+ (\S+)/.exec(tomb)?.[1] ?? '';
}

const tombstoneTime = (tomb: string): number => Number(tomb.split(' ', 1)[0]);

/**
 * The tombstones one more `left` at `now` removes in the same write, so `gone` keeps at most
 * `roomItemBudget.tombstones` of them: every one older than `goneKeptMs`, then the oldest until
 * there is room for the new one. At most `maxPerWrite` (the expression's size): a room stored
 * with more sheds them `maxPerWrite` at a time, one `left` after another.
 */
export function tombstonesToPrune(gone: Readonly<Record<string, string>>, now: number, maxPerWrite: number): string[] {
  const byAge = Object.entries(gone).sort(([, a], [, b]) => tombstoneTime(a) - tombstoneTime(b));
  const overCount = Math.max(0, byAge.length - (roomItemBudget.tombstones - 1));
  return byAge
    .filter(([, tomb], i) => i < overCount || !(tombstoneTime(tomb) >= now - goneKeptMs))
    .slice(0, maxPerWrite)
    .map(([hash]) => hash);
}

/**
 * When (epoch ms) an active member whose sockets all closed at `d` is seen inactive, or
 * undefined: it is connected, not active, or the template does not make sockets presence.
 */
function disconnectedInactiveAt(member: StoredMember, room: RoomClock): number | undefined {
  if (member.d === undefined || member.s !== stateCodes.active) return undefined;
  const after = roomTimeouts(room).disconnectedMs;
  return after === undefined || after === null ? undefined : member.d + after;
}

/**
 * The member as the rules see it at `now` (lazy, like every timeout): an active member that
 * has been without a socket for `disconnectedMs` is inactive since `d + disconnectedMs`, and
 * its `inactiveMs` runs from then. Otherwise the member as stored.
 */
export function memberAt(member: StoredMember, room: RoomClock, now: number): StoredMember {
  const since = disconnectedInactiveAt(member, room);
  if (since === undefined || now < since) return member;
  const { d: _d, e: _e, ...rest } = member;
  const timeout = roomTimeouts(room).inactiveMs;
  return { ...rest, s: stateCodes.inactive, t: since, ...(timeout === null ? {} : { e: since + timeout }) };
}

/** When the member is removed (epoch ms), or undefined if no timeout runs for it (yet). */
export function expiryOf(member: StoredMember, room: RoomClock): number | undefined {
  const inactiveSince = disconnectedInactiveAt(member, room);
  if (inactiveSince !== undefined) {
    const timeout = roomTimeouts(room).inactiveMs;
    return timeout === null ? undefined : inactiveSince + timeout;
  }
  if (member.e !== undefined) return member.e;
  if (member.p === undefined) {
    const state = memberStateOf(member.s);
    if (state === 'active') return undefined;
    const timeout = timeoutOf(state, roomTimeouts(room));
    return timeout === null ? undefined : member.t + timeout;
  }
  if (room.state === 'spawning') return undefined;
  const readyAt = Date.parse(room.readyAt ?? room.updatedAt ?? '');
  return Number.isFinite(readyAt) ? readyAt + member.p : undefined;
}

/** Lazy expiry: a member whose timeout ran out is removed at `now`, whatever the item says. */
export function isLiveMember(member: StoredMember, room: RoomClock, now: number): boolean {
  const expiry = expiryOf(member, room);
  return expiry === undefined || expiry > now;
}

export interface DocMember {
  readonly account: string;
  readonly member: StoredMember;
  /** Its current key's stored hash, if it has one. */
  readonly keyHash?: string;
}

/** The member holding this stored key hash, if any (keys are unique: one member at most). */
export function memberOfKey(doc: SessionDocument, hash: string): { account: string; member: StoredMember } | undefined {
  for (const [account, member] of Object.entries(doc.members)) {
    if (member.k === hash) return { account, member };
  }
  return undefined;
}

/** A member as the conditions name it: its key hash is the one it holds. */
export const docMember = (account: string, member: StoredMember): DocMember =>
  member.k === undefined ? { account, member } : { account, member, keyHash: member.k };

/** Members whose timeout ran out at `now`: their slots are free, once a write removes them. */
export function expiredMembers(doc: SessionDocument, room: RoomClock, now: number): DocMember[] {
  return Object.entries(doc.members)
    .filter(([, member]) => !isLiveMember(member, room, now))
    .map(([account, member]) => docMember(account, member));
}

/** How many members hold a slot at `now` (what every response shows as `players`). */
export function liveCount(doc: SessionDocument, room: RoomClock, now: number): number {
  return Object.values(doc.members).filter((member) => isLiveMember(member, room, now)).length;
}

/**
 * Whether a session with no live member since `emptySince` (epoch ms) is over at `now`:
 * `sessionEmptyMs` null = never, 0 = as soon as it is empty.
 */
export function sessionExpired(emptySince: number | undefined, now: number, timeouts: SessionTimeouts): boolean {
  if (emptySince === undefined || timeouts.sessionEmptyMs === null) return false;
  return now >= emptySince + timeouts.sessionEmptyMs;
}

/**
 * Reads the document parts of a room item, refusing shapes the rules cannot judge (state,
 * clocks). A member's other fields are checked where they are used (`memberOf`, by `joined`),
 * so one corrupt member breaks only what touches it, never every read of its room.
 */
export function documentOf(item: Record<string, unknown>): SessionDocument {
  const members: Record<string, StoredMember> = {};
  for (const [account, raw] of Object.entries(mapOf(item.members, 'members'))) {
    const m = mapOf(raw, `members.${account}`);
    if (typeof m.s !== 'number' || typeof m.t !== 'number') {
      throw new SessionDocumentCorruptError(`member ${account} lacks its state`);
    }
    memberStateOf(m.s);
    optionalNumber(m.e, 'e');
    optionalNumber(m.p, 'p');
    optionalNumber(m.d, 'd');
    if (m.k !== undefined && typeof m.k !== 'string') throw new SessionDocumentCorruptError(`member ${account} k`);
    members[account] = m as unknown as StoredMember;
  }
  // A leftover `keys` map (the former format) is ignored: its members hold no `k` and match no key.
  return { members, gone: stringMap(item.gone, 'gone') };
}

function mapOf(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SessionDocumentCorruptError(`${what} is not a map`);
  }
  return value as Record<string, unknown>;
}

function stringMap(value: unknown, what: string): Record<string, string> {
  const map = mapOf(value, what);
  for (const [key, entry] of Object.entries(map)) {
    if (typeof entry !== 'string') throw new SessionDocumentCorruptError(`${what}.${key} is not a string`);
  }
  return map as Record<string, string>;
}

const optionalNumber = (value: unknown, field: string): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new SessionDocumentCorruptError(`member ${field} is not a number`);
  return value;
};

/** One stored member, checked field by field (the hot path reads many; zod would cost more). */
export function memberOf(raw: unknown, account: string): StoredMember {
  const m = mapOf(raw, `members.${account}`);
  if (typeof m.s !== 'number' || typeof m.t !== 'number') {
    throw new SessionDocumentCorruptError(`member ${account} lacks its state`);
  }
  memberStateOf(m.s);
  if (m.c !== undefined && (!Array.isArray(m.c) || !m.c.every((scope) => typeof scope === 'string'))) {
    throw new SessionDocumentCorruptError(`member ${account} has scopes that are not a list of strings`);
  }
  if (m.u !== undefined && typeof m.u !== 'string') throw new SessionDocumentCorruptError('member u');
  if (m.k !== undefined && typeof m.k !== 'string') throw new SessionDocumentCorruptError('member k');
  if (m.v !== undefined && typeof m.v !== 'string') throw new SessionDocumentCorruptError('member v');
  if (m.i !== undefined && typeof m.i !== 'string') throw new SessionDocumentCorruptError('member i');
  const e = optionalNumber(m.e, 'e');
  const p = optionalNumber(m.p, 'p');
  const a = optionalNumber(m.a, 'a');
  const n = optionalNumber(m.n, 'n');
  const d = optionalNumber(m.d, 'd');
  return {
    s: m.s,
    t: m.t,
    ...(e === undefined ? {} : { e }),
    ...(p === undefined ? {} : { p }),
    ...(m.k === undefined ? {} : { k: m.k }),
    ...(m.c === undefined ? {} : { c: m.c as string[] }),
    ...(m.u === undefined ? {} : { u: m.u }),
    ...(a === undefined ? {} : { a }),
    ...(m.b === undefined ? {} : { b: memberOf(m.b, account) }),
    ...(m.q === undefined ? {} : { q: mapOf(m.q, `members.${account}.q`) }),
    ...(n === undefined ? {} : { n }),
    ...(d === undefined ? {} : { d }),
    ...(m.v === undefined ? {} : { v: m.v }),
    ...(m.i === undefined ? {} : { i: m.i }),
  };
}
