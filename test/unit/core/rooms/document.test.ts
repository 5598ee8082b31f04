import {
  documentOf,
  enterState,
  expiredMembers,
  expiryOf,
  isLiveMember,
  liveCount,
  memberAt,
  memberOf,
  memberOfKey,
  newReservation,
  SessionDocumentCorruptError,
  sessionExpired,
  storedHashOfKey,
  storedKeyHash,
  timeoutOf,
} from '../../../../core/rooms/document';
import { defaultConstants, type SessionTimeouts } from '../../../../core/rooms/session-model';
import { hashRegistrationKey } from '../../../../core/rooms/registration-keys';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const timeouts: SessionTimeouts = { reservedMs: 30_000, readyMs: 10_000, inactiveMs: 0, sessionEmptyMs: null };
const ready = { state: 'ready', readyAt: new Date(t0).toISOString(), constants: { timeouts }, reservationTimeoutS: 30 };

describe('member timeouts (null = never, 0 = at once)', () => {
  it.each([
    ['reserved', 30_000],
    ['ready', 10_000],
    ['active', null],
    ['inactive', 0],
  ] as const)('%s runs out after %p ms', (state, expected) => {
    expect(timeoutOf(state, timeouts)).toBe(expected);
  });

  it('entering a state restarts the clock and sets the expiry from its timeout', () => {
    expect(enterState('reserved', t0, timeouts)).toEqual({ s: 0, t: t0, e: t0 + 30_000 });
    expect(enterState('active', t0, timeouts, { c: ['play'] })).toEqual({ s: 2, t: t0, c: ['play'] });
  });

  it('a 0 timeout removes the member at once; null never does', () => {
    const inactive = enterState('inactive', t0, timeouts);
    expect(isLiveMember(inactive, ready, t0)).toBe(false);
    const active = enterState('active', t0, timeouts);
    expect(isLiveMember(active, ready, t0 + 10 ** 12)).toBe(true);
  });

  it('a reservation is live until its expiry, exclusive', () => {
    const member = newReservation(ready, t0, timeouts, []);
    expect(isLiveMember(member, ready, t0 + 29_999)).toBe(true);
    expect(isLiveMember(member, ready, t0 + 30_000)).toBe(false);
  });

  it("a join's reservation stores no expiry: its clock and the room's template give it", () => {
    const member = newReservation(ready, t0, timeouts, [], 7);
    expect(member).toEqual({ s: 0, t: t0, n: 7 });
    expect(expiryOf(member, ready)).toBe(t0 + 30_000);
    // A configuration room (no constants stored): the default template, reservationTimeoutS.
    expect(expiryOf(member, { state: 'ready', reservationTimeoutS: 45 })).toBe(t0 + 45_000);
    // A stored expiry wins (a creator's reservation with a fixed expiry).
    expect(expiryOf({ ...member, e: t0 + 5 }, ready)).toBe(t0 + 5);
    // A state without a timeout never expires; a template without a reservation timeout neither.
    expect(expiryOf({ s: 2, t: t0 }, ready)).toBeUndefined();
    const noReservedTimeout = { ...ready, constants: { timeouts: { ...timeouts, reservedMs: null } } };
    expect(expiryOf(member, noReservedTimeout)).toBeUndefined();
  });
});

describe('pending reservations (a room still spawning)', () => {
  const spawning = { state: 'spawning', constants: { timeouts }, reservationTimeoutS: 30, serverScopes: ['play'] };

  it('never expire while the room spawns, however long', () => {
    const member = newReservation(spawning, t0, timeouts, ['play'], 7);
    expect(member).toEqual({ s: 0, t: t0, p: 30_000, c: ['play'], n: 7 });
    expect(isLiveMember(member, spawning, t0 + 10 ** 9)).toBe(true);
  });

  it('count reservationTimeoutS from readyAt, not from the spawn deadline', () => {
    const member = newReservation(spawning, t0, timeouts, []);
    const readyLater = { ...spawning, state: 'ready', readyAt: new Date(t0 + 5_000).toISOString() };
    expect(expiryOf(member, readyLater)).toBe(t0 + 35_000);
    expect(isLiveMember(member, readyLater, t0 + 34_999)).toBe(true);
    expect(isLiveMember(member, readyLater, t0 + 35_000)).toBe(false);
  });
});

describe('the default template of a configuration room', () => {
  it('times reservations by reservationTimeoutS and nothing else', () => {
    expect(defaultConstants({ maxPlayers: 8, reservationTimeoutS: 45 })).toEqual({
      maxMembers: 8,
      visibility: 'open',
      timeouts: { reservedMs: 45_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
    });
  });
});

describe('judging a document lazily', () => {
  const doc = documentOf({
    members: {
      old: { s: 0, t: t0, e: t0 + 1_000, k: 'hOld' },
      fresh: { s: 0, t: t0, e: t0 + 60_000, k: 'hFresh' },
      playing: { s: 2, t: t0, u: 'req-1', a: t0, k: 'hPlaying' },
    },
    gone: {},
  });

  it('finds the expired members with their keys, and counts the live ones', () => {
    expect(expiredMembers(doc, ready, t0 + 2_000)).toEqual([
      { account: 'old', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hOld' }, keyHash: 'hOld' },
    ]);
    expect(liveCount(doc, ready, t0 + 2_000)).toBe(2);
    expect(liveCount(doc, ready, t0)).toBe(3);
  });

  it('an empty session ends after sessionEmptyMs (0: at once, null: never)', () => {
    expect(sessionExpired(t0, t0, { ...timeouts, sessionEmptyMs: 0 })).toBe(true);
    expect(sessionExpired(t0, t0 + 999, { ...timeouts, sessionEmptyMs: 1_000 })).toBe(false);
    expect(sessionExpired(t0, t0 + 1_000, { ...timeouts, sessionEmptyMs: 1_000 })).toBe(true);
    expect(sessionExpired(t0, t0 + 10 ** 12, timeouts)).toBe(false);
    expect(sessionExpired(undefined, t0, { ...timeouts, sessionEmptyMs: 0 })).toBe(false);
  });

  it('finds the member of a key in the members themselves (no key map)', () => {
    expect(memberOfKey(doc, 'hFresh')).toEqual({ account: 'fresh', member: doc.members.fresh });
    expect(memberOfKey(doc, 'hNobody')).toBeUndefined();
  });

  it('ignores a leftover `keys` map of the former format: its members hold no key', () => {
    const legacy = documentOf({ members: { a: { s: 0, t: 1 } }, keys: { hA: 'a', junk: 5 }, gone: {} });
    expect(legacy).toEqual({ members: { a: { s: 0, t: 1 } }, gone: {} });
    expect(memberOfKey(legacy, 'hA')).toBeUndefined();
  });

  it('checks the rest of a member where it is used, so one bad member breaks only itself', () => {
    const item = { members: { a: { s: 0, t: 1, c: 7 }, b: { s: 0, t: 1 } } };
    expect(documentOf(item).members.b).toEqual({ s: 0, t: 1 });
    expect(() => memberOf(item.members.a, 'a')).toThrow('scopes');
  });

  it.each([
    [{ members: { a: { s: 0, t: 1, e: 'soon' } } }, 'not a number'],
    [{ members: { a: { s: 9, t: 1 } } }, 'state code'],
    [{ members: { a: { t: 1 } } }, 'lacks'],
    [{ gone: { h: 5 } }, 'gone.h'],
    [{ members: { a: { s: 0, t: 1, k: 5 } } }, 'member a k'],
  ])('refuses a shape no code path writes (%j)', (item, why) => {
    expect(() => documentOf(item)).toThrow(SessionDocumentCorruptError);
    expect(() => documentOf(item)).toThrow(why);
  });
});

describe('sockets as presence: a disconnected active member (d) with disconnectedMs', () => {
  const presence = (inactiveMs: number | null) => ({
    ...ready,
    constants: { timeouts: { ...timeouts, inactiveMs, disconnectedMs: 5_000 } },
  });
  const disconnected = { s: 2, t: t0, d: t0 + 1_000 };

  it('is active until d + disconnectedMs, then inactive since then, its inactiveMs running from then', () => {
    const room = presence(60_000);
    expect(memberAt(disconnected, room, t0 + 5_999)).toBe(disconnected);
    expect(memberAt(disconnected, room, t0 + 6_000)).toEqual({ s: 3, t: t0 + 6_000, e: t0 + 66_000 });
    expect(expiryOf(disconnected, room)).toBe(t0 + 66_000);
    expect(isLiveMember(disconnected, room, t0 + 65_999)).toBe(true);
    expect(isLiveMember(disconnected, room, t0 + 66_000)).toBe(false);
  });

  it('with inactiveMs null it stays, inactive; without disconnectedMs, or connected, or not active, nothing changes', () => {
    expect(memberAt(disconnected, presence(null), t0 + 10 ** 9)).toEqual({ s: 3, t: t0 + 6_000 });
    expect(expiryOf(disconnected, presence(null))).toBeUndefined();
    expect(memberAt(disconnected, ready, t0 + 10 ** 9)).toBe(disconnected);
    expect(expiryOf(disconnected, ready)).toBeUndefined();
    const connected = { s: 2, t: t0 };
    expect(memberAt(connected, presence(0), t0 + 10 ** 9)).toBe(connected);
    const reserved = { s: 0, t: t0, d: t0 };
    expect(memberAt(reserved, presence(0), t0 + 10 ** 9)).toBe(reserved);
  });

  it('reads d back from a stored member, and refuses one that is not a number', () => {
    expect(memberOf(disconnected, 'bob')).toEqual(disconnected);
    expect(() => documentOf({ members: { bob: { s: 2, t: t0, d: 'soon' } } })).toThrow(SessionDocumentCorruptError);
  });
});

describe('stored key hashes', () => {
  it('keep 128 bits of SHA-256 in 22 base64url characters, from the key or from its hex hash', () => {
    const key = 'a-registration-key';
    const stored = storedHashOfKey(key);
    expect(stored).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(stored, 'base64url')).toHaveLength(16);
    expect(storedKeyHash(hashRegistrationKey(key))).toBe(stored);
    expect(storedHashOfKey(`${key}x`)).not.toBe(stored);
  });
});
