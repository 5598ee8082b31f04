import { memberAsRead, roomConditions as is } from '../../../../core/rooms/room-conditions';
import { allOf, compileWrite } from '../../../../core/rooms/room-expression';
import { completeWrite } from '../../../../core/rooms/rooms';
import {
  claimWrite,
  classifyClaimFailure,
  maxReclaimPerWrite,
  reclaimAndClaimWrite,
  reclaimBatchFor,
} from '../../../../core/rooms/join-conditions';
import { maxPartyEntries } from '../../../../core/auth/token-model';
import { matchmakingRequestSchema, maxCriteria } from '../../../../core/rooms/schema';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const member = { s: 0, t: t0, e: t0 + 30_000 };
const aliceSeat = [{ account: 'alice', keyHash: 'hAlice', member }];
const spec = { members: aliceSeat, heartbeatSince: '2026-01-01T00:00:00.000Z' };

const roomItem = (overrides: Record<string, unknown> = {}) => ({
  state: 'ready',
  players: 2,
  maxPlayers: 2,
  reservationTimeoutS: 30,
  lastHeartbeatAt: '2026-01-01T00:00:05.000Z',
  readyAt: '2026-01-01T00:00:00.000Z',
  members: { bob: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, carol: { s: 2, t: t0, u: 'r', a: t0, k: 'hCarol' } },
  gone: {},
  ...overrides,
});

const now = new Date(t0);

describe('claimWrite: the join is one conditional write', () => {
  it('adds the member holding its key and a player, the state and settings echoed for UPDATED_NEW', () => {
    const write = claimWrite(spec, now);
    expect(write.change).toEqual({
      set: [[['members', 'alice'], { ...member, k: 'hAlice' }]],
      add: [[['players'], 1]],
      echo: [['state'], ['settings']],
    });
    expect(write.condition).toEqual(
      allOf(
        is.memberAbsent('alice'),
        is.hasFreeSlot,
        is.roomIsLive,
        is.serverHeardFrom(spec.heartbeatSince),
        is.joinabilityAdmits({ held: [], addsNewcomer: true }, now.getTime()),
      ),
    );
    expect(write.now).toBe(now);
  });

  it("with the client's build and criteria: the room must accept the build and hold them; the member keeps its build", () => {
    const write = claimWrite({ ...spec, protocol: 'aaaaaaaaaaaaaaaa', criteria: { mode: 'ranked' } }, now);
    expect(write.change.set).toEqual([[['members', 'alice'], { ...member, k: 'hAlice', v: 'aaaaaaaaaaaaaaaa' }]]);
    expect(write.condition).toEqual(
      allOf(
        is.memberAbsent('alice'),
        is.hasFreeSlot,
        is.roomIsLive,
        is.serverHeardFrom(spec.heartbeatSince),
        is.joinabilityAdmits({ held: [], addsNewcomer: true }, now.getTime()),
        is.protocolAccepts('aaaaaaaaaaaaaaaa'),
        is.settingsMatch({ mode: 'ranked' }),
      ),
    );
  });

  it('leaves the heartbeat out when no cutoff is given', () => {
    const { heartbeatSince: _since, ...withoutCutoff } = spec;
    expect(JSON.stringify(claimWrite(withoutCutoff, now).condition)).not.toContain('lastHeartbeatAt');
  });
});

describe('reclaimAndClaimWrite: remove exactly the expired members and claim, one write', () => {
  it('removes each expired member on condition it is as read (same key, same clock), and widens the cap', () => {
    const expired = [{ account: 'bob', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, keyHash: 'hBob' }];
    const write = reclaimAndClaimWrite({ ...spec, expired, maxPlayers: 2 }, now);
    expect(write.change.remove).toEqual([['members', 'bob']]);
    expect(write.change.add).toEqual([[['players'], 0]]);
    const conditions = (write.condition as { of: readonly unknown[] }).of;
    expect(conditions).toEqual(
      expect.arrayContaining([memberAsRead(expired[0]!), is.memberAbsent('alice'), is.playersBelow(3)]),
    );
  });

  it("overwrites the joiner's own expired entry (and so its old key) instead of removing it", () => {
    const expired = [{ account: 'alice', member: { s: 0, t: t0 - 5, e: t0, k: 'hOld' }, keyHash: 'hOld' }];
    const write = reclaimAndClaimWrite({ ...spec, expired, maxPlayers: 2 }, now);
    expect(write.change.remove).toEqual([]);
    expect(write.change.set).toEqual([[['members', 'alice'], { ...member, k: 'hAlice' }]]);
    const conditions = (write.condition as { of: readonly unknown[] }).of;
    expect(conditions).toEqual(expect.arrayContaining([is.memberUnchanged('alice', t0 - 5), is.playersBelow(3)]));
    expect(conditions).not.toContainEqual(is.memberAbsent('alice'));
    expect(write.change.add).toEqual([[['players'], 0]]);
  });

  it(`removes at most ${maxReclaimPerWrite} members per write, keeping the expression under 4 KB`, () => {
    const expired = Array.from({ length: 100 }, (_, i) => ({
      account: `player-${i}`,
      member: { s: 0, t: t0, e: t0 },
      keyHash: `h${i}`.padEnd(22, 'x'),
    }));
    const write = reclaimAndClaimWrite({ ...spec, expired, maxPlayers: 100 }, now);
    expect(write.change.remove).toHaveLength(maxReclaimPerWrite);
    expect((write.condition as { of: readonly unknown[] }).of).toContainEqual(
      is.playersBelow(100 + maxReclaimPerWrite),
    );
    const { condition, change } = completeWrite(write, 3_600);
    const compiled = compileWrite(condition, change);
    expect((compiled.UpdateExpression ?? '').length + compiled.ConditionExpression.length).toBeLessThan(4096);
  });
});

/**
 * Operators and functions in a compiled expression, as DynamoDB counts them against its limit
 * of 300 (comparators, AND/OR/NOT, BETWEEN/IN, functions; arithmetic in an update), counting the
 * `=` of each SET as well, which only errs on the safe side.
 */
function operatorsIn(expression: string): number {
  const pattern = /<>|<=|>=|=|<|>|\+|\s-\s|\b(?:AND|OR|NOT|BETWEEN|IN)\b|\b[a-z_]+\(/g;
  return expression.match(pattern)?.length ?? 0;
}

describe("the join's expression stays within DynamoDB's limits in the worst case", () => {
  it(`${maxCriteria} criteria, ${maxReclaimPerWrite} expired members reclaimed and a build: under 4 KB and 300 operators each`, () => {
    const criteria = Object.fromEntries(Array.from({ length: maxCriteria }, (_, i) => [`criterion-${i}`, i]));
    // Expired members with every field an expired-member condition may name (key, disconnect).
    const expired = Array.from({ length: maxReclaimPerWrite + 5 }, (_, i) => ({
      account: `player-${i}`,
      member: { s: 0, t: t0, e: t0, d: t0 },
      keyHash: `h${i}`.padEnd(22, 'x'),
    }));
    const write = reclaimAndClaimWrite(
      { ...spec, protocol: 'aaaaaaaaaaaaaaaa', criteria, expired, maxPlayers: 100 },
      now,
    );
    const { condition, change } = completeWrite(write, 3_600);
    const compiled = compileWrite(condition, change);
    const update = compiled.UpdateExpression ?? '';
    expect(compiled.ConditionExpression.length).toBeLessThan(4096);
    expect(update.length).toBeLessThan(4096);
    expect(operatorsIn(compiled.ConditionExpression)).toBeLessThan(300);
    expect(operatorsIn(update)).toBeLessThan(300);
  });

  it(`the largest party (${maxPartyEntries + 1}, every seat an invited held one), ${maxCriteria} criteria, a build and its reclaim batch: under 4 KB and 300 operators`, () => {
    const criteria = Object.fromEntries(Array.from({ length: maxCriteria }, (_, i) => [`criterion-${i}`, i]));
    const members = Array.from({ length: maxPartyEntries + 1 }, (_, i) => ({
      account: `party-${i}`,
      keyHash: `k${i}`.padEnd(22, 'x'),
      member,
    }));
    const held = Object.fromEntries(
      members.map((seat) => [seat.account, { member: { ...member, i: 'x' }, keyHash: 'h'.padEnd(22, 'y') }]),
    );
    const expired = Array.from({ length: maxReclaimPerWrite + 5 }, (_, i) => ({
      account: `player-${i}`,
      member: { s: 0, t: t0, e: t0, d: t0 },
      keyHash: `h${i}`.padEnd(22, 'x'),
    }));
    for (const party of [members, members.slice(0, 2)]) {
      const write = reclaimAndClaimWrite(
        { ...spec, members: party, held, protocol: 'aaaaaaaaaaaaaaaa', criteria, expired, maxPlayers: 100 },
        now,
      );
      expect(write.change.remove?.length).toBeGreaterThanOrEqual(reclaimBatchFor(party.length));
      const { condition, change } = completeWrite(write, 3_600);
      const compiled = compileWrite(condition, change);
      const update = compiled.UpdateExpression ?? '';
      expect(compiled.ConditionExpression.length).toBeLessThan(4096);
      expect(update.length).toBeLessThan(4096);
      expect(operatorsIn(compiled.ConditionExpression)).toBeLessThan(300);
      expect(operatorsIn(update)).toBeLessThan(300);
    }
    expect(reclaimBatchFor(maxPartyEntries + 1)).toBeGreaterThan(0);
  });

  it('a party joining an inviteOnly session: a write adding a newcomer needs it open; invite checks only on held seats', () => {
    const party = [...aliceSeat, { account: 'bob', keyHash: 'hB', member }];
    const adding = claimWrite({ ...spec, members: party, maxPlayers: 4, held: { bob: { member } } }, now);
    expect((adding.condition as { of: readonly unknown[] }).of).toContainEqual(is.joinabilityOpen);
    expect(JSON.stringify(adding.condition)).not.toContain('"i"');
    const all = { alice: { member }, bob: { member } };
    const rekey = claimWrite({ ...spec, members: party, maxPlayers: 4, held: all }, now);
    expect((rekey.condition as { of: readonly unknown[] }).of).toContainEqual(
      is.joinabilityAdmits({ held: ['alice', 'bob'], addsNewcomer: false }, now.getTime()),
    );
  });

  it(`refuses more than ${maxCriteria} criteria with a 400 that says why`, () => {
    const body = { gameId: 'arena', version: '1.0.0' };
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(matchmakingRequestSchema.safeParse({ ...body, criteria: keys(maxCriteria) }).success).toBe(true);
    const refused = matchmakingRequestSchema.safeParse({ ...body, criteria: keys(maxCriteria + 1) });
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({ path: ['criteria'], message: expect.stringMatching(`at most ${maxCriteria} keys`) }),
    ]);
  });
});

describe('classifyClaimFailure: Reclaim only when one write can make room', () => {
  it('a party needing more slots than its one write may reclaim is Full; one that fits in the batch reclaims', () => {
    const stale = (i: number) => [`gone-${i}`, { s: 0, t: t0 - 10, e: t0 - 1, k: `h${i}` }] as const;
    const item = roomItem({
      players: 100,
      maxPlayers: 100,
      members: Object.fromEntries(Array.from({ length: 100 }, (_, i) => stale(i))),
    });
    const seats = (n: number) => Array.from({ length: n }, (_, i) => ({ account: `p${i}`, keyHash: `k${i}`, member }));
    const big = maxPartyEntries + 1;
    expect(reclaimBatchFor(big)).toBeLessThan(big);
    expect(classifyClaimFailure(item, { members: seats(big) }, t0)).toEqual({ state: 'Full' });
    expect(classifyClaimFailure(item, { members: seats(2) }, t0)).toMatchObject({ state: 'Reclaim' });
  });
});

describe('classifyClaimFailure: a build mismatch and unmatched criteria come before the slots', () => {
  const server = { h: 'bbbbbbbbbbbbbbbb', b: '2026-01-01T00:00:00Z' };
  const checked = { members: aliceSeat, protocol: 'aaaaaaaaaaaaaaaa' };

  it('a full room of another build is a Mismatch, naming the server build', () => {
    expect(classifyClaimFailure(roomItem({ protocol: server }), checked, t0)).toEqual({
      state: 'Mismatch',
      server,
      room: expect.objectContaining({ state: 'ready', protocol: server }),
    });
  });

  it('the same build, a room without a build, or a room made with the check off: not a mismatch', () => {
    for (const item of [
      roomItem({ protocol: { h: 'aaaaaaaaaaaaaaaa' } }),
      roomItem(),
      roomItem({ protocol: server, protocolCheck: false }),
    ])
      expect(classifyClaimFailure(item, checked, t0)).toEqual({ state: 'Full' });
    expect(classifyClaimFailure(roomItem({ protocol: server }), { members: aliceSeat }, t0)).toEqual({ state: 'Full' });
  });

  it('a room that takes no joins at all answers that, whatever its build or settings', () => {
    const other = { protocol: server, settings: { mode: 'casual' } };
    const spec = { ...checked, criteria: { mode: 'ranked' }, heartbeatSince: '2026-01-01T00:00:00.000Z' };
    expect(classifyClaimFailure(roomItem({ ...other, state: 'closed' }), spec, t0)).toEqual({
      state: 'NotJoinable',
      reason: 'the room is closed',
    });
    expect(classifyClaimFailure(roomItem({ ...other, properties: { joinability: 'closed' } }), spec, t0)).toEqual({
      state: 'NotJoinable',
      reason: 'its joinability is closed',
    });
    expect(classifyClaimFailure(roomItem({ ...other, lastHeartbeatAt: '2025-12-31T23:59:00.000Z' }), spec, t0)).toEqual(
      { state: 'Silent' },
    );
  });

  it('an account holding a live slot keeps it (AlreadyMember), whatever the build or settings', () => {
    const alice = { s: 0, t: t0, e: t0 + 60_000, k: 'hA' };
    const item = roomItem({ protocol: server, settings: { mode: 'casual' }, members: { alice }, players: 1 });
    for (const spec of [checked, { members: aliceSeat, criteria: { mode: 'ranked' } }])
      expect(classifyClaimFailure(item, spec, t0)).toEqual({ state: 'AlreadyMember', member: alice, keyHash: 'hA' });
  });

  it('settings that no longer hold the criteria: NotMatching', () => {
    const item = roomItem({ settings: { mode: 'casual' }, players: 0 });
    expect(classifyClaimFailure(item, { members: aliceSeat, criteria: { mode: 'ranked' } }, t0)).toEqual({
      state: 'NotMatching',
    });
    expect(classifyClaimFailure(item, { members: aliceSeat, criteria: { mode: 'casual' } }, t0)).toEqual({
      state: 'Retry',
    });
  });
});

describe('classifyClaimFailure: ALL_OLD tells the outcomes apart without another read', () => {
  const now = t0 + 2_000;

  it.each([
    ['no item', undefined, { state: 'NotFound' }],
    ['a failed room', roomItem({ state: 'failed' }), { state: 'NotJoinable', reason: 'the room is failed' }],
    [
      'a closed session',
      roomItem({ properties: { joinability: 'closed' } }),
      { state: 'NotJoinable', reason: 'its joinability is closed' },
    ],
    ['a silent server', roomItem({ lastHeartbeatAt: '2025-12-31T23:59:00.000Z' }), { state: 'Silent' }],
    [
      'every slot held by a live member',
      roomItem({ members: { bob: { s: 2, t: t0 }, carol: { s: 2, t: t0 } } }),
      { state: 'Full' },
    ],
  ] as const)('%s', (_name, item, expected) => {
    expect(
      classifyClaimFailure(
        item as Record<string, unknown> | undefined,
        { members: aliceSeat, heartbeatSince: spec.heartbeatSince },
        now,
      ),
    ).toEqual(expected);
  });

  it('a full room with an expired reservation: reclaim exactly that one', () => {
    expect(classifyClaimFailure(roomItem(), { members: aliceSeat, heartbeatSince: spec.heartbeatSince }, now)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, keyHash: 'hBob' }],
    });
  });

  it("judges a join's reservation by its clock and the room's reservation timeout (no stored expiry)", () => {
    const joinedAt = now - 30_000;
    const members = { bob: { s: 0, t: joinedAt, k: 'hBob' }, carol: { s: 2, t: t0, k: 'hCarol' } };
    expect(classifyClaimFailure(roomItem({ members }), { members: aliceSeat }, now)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: members.bob, keyHash: 'hBob' }],
    });
    const fresher = { ...members, bob: { ...members.bob, t: joinedAt + 1 } };
    expect(classifyClaimFailure(roomItem({ members: fresher }), { members: aliceSeat }, now)).toEqual({
      state: 'Full',
    });
  });

  it('the account already holds a live slot: AlreadyMember with its key', () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, { members: aliceSeat }, now)).toEqual({
      state: 'AlreadyMember',
      member: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' },
      keyHash: 'hA',
    });
  });

  it("the account's own reservation expired: reclaim it (one write gives a fresh slot)", () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 1, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, { members: aliceSeat }, now)).toMatchObject({
      state: 'Reclaim',
      expired: [{ account: 'alice' }],
    });
  });
});
