import { grantableScopes } from '../../../../core/auth/token-model';
import { roomSettingsSchema, maxSettingsBytes } from '../../../../core/rooms/schema';
import { firstMembers, roomItem } from '../../../../core/rooms/room-item';
import {
  goneKeptMs,
  newReservation,
  preConfirmation,
  tombstoneOf,
  tombstoneRequest,
  tombstonesToPrune,
  type StoredMember,
} from '../../../../core/rooms/document';
import {
  attributeValueBytes,
  itemBytes,
  mapEntryBytes,
  memberBudgetIssue,
  roomItemBudget,
  storedScopes,
} from '../../../../core/rooms/item-budget';
import {
  memberPropertiesCustomSchema,
  sessionConstantsCustomSchema,
  sessionPropertiesCustomSchema,
} from '../../../../core/rooms/custom-schema';
import { defaultConstants, sessionCustomLimits } from '../../../../core/rooms/session-model';
import { aRoom } from '../../../helpers/factories';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
/** DynamoDB refuses an item larger than this (400 KB). */
const dynamoItemLimit = 409_600;

/**
 * The JSON object of at most `bytes` that DynamoDB stores largest: a list of zeros (2 B of JSON,
 * 3 B stored, each), checked against the schema that guards it.
 */
function worstJson(bytes: number): Record<string, unknown> {
  const zeros = Math.floor((bytes - '{"a":[]}'.length + 1) / 2);
  return { a: Array.from({ length: zeros }, () => 0) };
}

/** `n` distinct scope names of the longest length a configuration allows. */
const longScopes = (n: number, prefix = 's') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`.padEnd(roomItemBudget.scopeLength, 'x'));

describe('attributeValueBytes / itemBytes: DynamoDB size rules', () => {
  it.each<[string, unknown, number]>([
    ['a string: its UTF-8 bytes', 'héllo', 6],
    ['zero', 0, 2],
    ['a 13-digit epoch ms: 7 + 1', 1_767_225_600_123, 8],
    ['a negative number, erring large', -5, 3],
    ['null', null, 1],
    ['a boolean', true, 1],
    ['an empty list', [], 3],
    ['a list: 3 + 1 per element', ['ab', 'c'], 3 + 1 + 2 + 1 + 1],
    ['a map: 3 + name + value + 1 per entry', { ab: 'xyz' }, 3 + 2 + 3 + 1],
  ])('%s', (_what, value, bytes) => {
    expect(attributeValueBytes(value)).toBe(bytes);
  });

  it('counts each attribute name and value of an item', () => {
    expect(itemBytes({ pk: 'ROOM#r1', n: 7 })).toBe(2 + 7 + 1 + 2);
  });
});

describe('storedScopes: what of a player token enters a reservation', () => {
  const ceiling = ['play', 'chat', 'trade'];

  it.each<[string, string[], readonly string[] | undefined, string[]]>([
    ['only scopes the room’s serverScopes hold', ['admin', 'chat', 'mail', 'play'], ceiling, ['chat', 'play']],
    ['each once, in the player’s order', ['trade', 'play', 'trade'], ceiling, ['trade', 'play']],
    ['none for a room without serverScopes (peer-hosted, older rooms)', ['play'], undefined, []],
    ['none for a player without scopes', [], ceiling, []],
  ])('keeps %s', (_what, scopes, serverScopes, kept) => {
    expect(storedScopes(scopes, serverScopes)).toEqual(kept);
  });

  it('keeps at most scopeBytes of names, whatever the token holds', () => {
    const many = longScopes(32);
    const kept = storedScopes([...many, ...longScopes(200, 'junk')], many);
    expect(kept).toEqual(many.slice(0, roomItemBudget.scopeBytes / roomItemBudget.scopeLength));
    expect(kept.join('').length).toBeLessThanOrEqual(roomItemBudget.scopeBytes);
  });

  it('keeps at most scopeCount scopes', () => {
    const short = Array.from({ length: 40 }, (_, i) => `s${i}`);
    expect(storedScopes(short, short)).toHaveLength(roomItemBudget.scopeCount);
  });

  it('a reservation stores them through newReservation, the one place they enter', () => {
    const room = { state: 'ready', serverScopes: ceiling };
    expect(
      newReservation(room, t0, defaultConstants({ maxPlayers: 8, reservationTimeoutS: 30 }).timeouts, ['x', 'chat'], 7),
    ).toEqual({ s: 0, t: t0, c: ['chat'], n: 7 });
  });
});

describe('preConfirmation: the copy joined keeps in b', () => {
  it('holds state, clock and expiry only: scopes, properties and key stay the member’s own', () => {
    const reservation: StoredMember = {
      s: 0,
      t: t0,
      e: t0 + 30_000,
      p: 30_000,
      k: 'h',
      c: ['play'],
      q: { a: 1 },
    };
    expect(preConfirmation(reservation)).toEqual({ s: 0, t: t0, e: t0 + 30_000, p: 30_000 });
  });
});

describe('tombstonesToPrune: gone keeps the newest tombstones of the last hour', () => {
  const now = t0 + 10 * goneKeptMs;
  const gone = (count: number, from: number, step = 1) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`h${from + i}`, tombstoneOf(now - (from + i) * step, `req${i}`)]),
    );

  it('prunes nothing while there is room and every tombstone is recent', () => {
    expect(tombstonesToPrune(gone(roomItemBudget.tombstones - 1, 0), now, 32)).toEqual([]);
  });

  it('at the bound, prunes the oldest one so the new one fits', () => {
    const full = gone(roomItemBudget.tombstones, 1);
    expect(tombstonesToPrune(full, now, 32)).toEqual([`h${roomItemBudget.tombstones}`]);
  });

  it('prunes every tombstone older than an hour, even with room to spare', () => {
    const map = {
      ...gone(3, 1),
      old1: tombstoneOf(now - goneKeptMs - 1, 'a'),
      old2: tombstoneOf(now - 2 * goneKeptMs, 'b'),
    };
    expect(tombstonesToPrune(map, now, 32).sort()).toEqual(['old1', 'old2']);
  });

  it('sheds at most maxPerWrite at once from a room stored with far more (the oldest first)', () => {
    const pruned = tombstonesToPrune(gone(1_000, 1), now, 32);
    expect(pruned).toHaveLength(32);
    expect(pruned[0]).toBe('h1000');
  });

  it('reads the request of new tombstones and of older ones that also name the account', () => {
    expect(tombstoneRequest(tombstoneOf(t0, 'corr-1'))).toBe('corr-1');
    expect(tombstoneRequest(`${t0} corr-2 alice`)).toBe('corr-2');
  });
});

describe('memberBudgetIssue: the join refuses a member that cannot take its share', () => {
  it('accepts an account of accountBytes and refuses one byte more, with a sentence', () => {
    const member = { s: 0, t: t0, k: 'q6urq6urq6urq6urq6urqw' };
    expect(memberBudgetIssue('a'.repeat(roomItemBudget.accountBytes), member)).toBeUndefined();
    expect(memberBudgetIssue('a'.repeat(roomItemBudget.accountBytes + 1), member)).toMatch(
      /account name of 256 bytes cannot hold a slot; the limit is 255/,
    );
  });

  it('refuses a member larger than memberBytes whatever makes it so', () => {
    expect(memberBudgetIssue('alice', { s: 0, t: t0, q: { x: 'y'.repeat(4_000) } })).toMatch(/a member may take 2560/);
  });
});

describe('the budget: the worst case of every part fits in one item', () => {
  const serverScopes = grantableScopes(longScopes(32));

  /** A confirmed member with the most of everything: longest account, scopes, properties, request id. */
  function worstMember(): { account: string; member: StoredMember } {
    const q = memberPropertiesCustomSchema.parse(worstJson(sessionCustomLimits.memberPropertiesBytes));
    const reservation = {
      ...newReservation(
        { state: 'spawning', serverScopes },
        t0,
        defaultConstants({ maxPlayers: 100, reservationTimeoutS: 30 }).timeouts,
        serverScopes,
      ),
      e: t0 + 30_000,
      v: 'f'.repeat(16),
    };
    const member: StoredMember = {
      ...reservation,
      s: 3,
      k: 'q6urq6urq6urq6urq6urqw',
      u: 'u'.repeat(128),
      a: t0,
      b: preConfirmation(reservation),
      q,
      d: t0 + 10 ** 12,
    };
    return { account: 'a'.repeat(roomItemBudget.accountBytes), member };
  }

  it('a member with the most of everything takes at most memberBytes', () => {
    const { account, member } = worstMember();
    expect(memberBudgetIssue(account, member)).toBeUndefined();
    expect(mapEntryBytes(account, member)).toBeLessThanOrEqual(roomItemBudget.memberBytes);
  });

  it('a tombstone with the longest request id takes at most tombstoneBytes', () => {
    expect(mapEntryBytes('q6urq6urq6urq6urq6urqw', tombstoneOf(t0 + 10 ** 12, 'r'.repeat(128)))).toBeLessThanOrEqual(
      roomItemBudget.tombstoneBytes,
    );
  });

  it("a room's own fields at every schema's maximum take at most roomFieldsBytes", () => {
    const settings = roomSettingsSchema.parse(worstJson(maxSettingsBytes));
    const room = aRoom({
      gameId: 'g'.repeat(64),
      version: 'v'.repeat(64),
      region: 'r'.repeat(64),
      owner: 'o'.repeat(roomItemBudget.accountBytes),
      settings,
      maxPlayers: 100,
      serverScopes,
      commands: Array.from({ length: 64 }, (_, i) => `c${i}`.padEnd(64, 'x')),
      template: 't'.repeat(128),
      bucket: 'b'.repeat(64),
      initedBy: 'i'.repeat(128),
      placement: {
        taskId: 'arn:'.padEnd(256, 't'),
        host: 'h'.repeat(253),
        ports: Array.from({ length: 16 }, () => 65_535),
      },
      address: 'h'.repeat(253),
      constants: {
        ...defaultConstants({ maxPlayers: 100, reservationTimeoutS: 30 }),
        custom: sessionConstantsCustomSchema.parse(worstJson(sessionCustomLimits.constantsBytes)),
      },
      properties: {
        joinability: 'inviteOnly',
        custom: sessionPropertiesCustomSchema.parse(worstJson(sessionCustomLimits.propertiesBytes)),
      },
    });
    const { members: _m, gone: _g, ...fields } = roomItem(room, firstMembers(room));
    expect(itemBytes(fields)).toBeLessThanOrEqual(roomItemBudget.roomFieldsBytes);
  });

  it('the arbiter with a report from every other member, and a saved state at its cap, take at most arbiterBytes', () => {
    const account = 'a'.repeat(roomItemBudget.accountBytes);
    const reports = Object.fromEntries(
      Array.from({ length: roomItemBudget.maxMembers - 1 }, (_, i) => [`${i}`.padStart(account.length, 'r'), t0]),
    );
    const host = { e: Number.MAX_SAFE_INTEGER, a: account, s: t0, r: reports };
    const saved = { e: Number.MAX_SAFE_INTEGER, at: t0, d: 'x'.repeat(roomItemBudget.savedStateBytes) };
    expect(itemBytes({ host, saved })).toBeLessThanOrEqual(roomItemBudget.arbiterBytes);
  });

  it('room fields + maxMembers members + the kept tombstones stay under the budget, and it under 400 KB', () => {
    const { account, member } = worstMember();
    const members = Object.fromEntries(
      Array.from({ length: roomItemBudget.maxMembers }, (_, i) => [`${i}`.padStart(account.length, 'a'), member]),
    );
    const gone = Object.fromEntries(
      Array.from({ length: roomItemBudget.tombstones }, (_, i) => [
        `${i}`.padStart(22, 'h'),
        tombstoneOf(t0, 'r'.repeat(128)),
      ]),
    );
    const worst = roomItemBudget.roomFieldsBytes + roomItemBudget.arbiterBytes + itemBytes({ members, gone });
    const bound =
      roomItemBudget.roomFieldsBytes +
      roomItemBudget.arbiterBytes +
      itemBytes({ members: {}, gone: {} }) +
      roomItemBudget.maxMembers * roomItemBudget.memberBytes +
      roomItemBudget.tombstones * roomItemBudget.tombstoneBytes;
    expect(worst).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThanOrEqual(roomItemBudget.itemBytes);
    expect(roomItemBudget.itemBytes).toBeLessThan(dynamoItemLimit);
  });
});
