import { memberAsRead, roomConditions as is } from '../../../../core/rooms/room-conditions';
import { allOf, compileWrite } from '../../../../core/rooms/room-expression';
import { completeWrite } from '../../../../core/rooms/rooms';
import {
  claimWrite,
  classifyClaimFailure,
  maxReclaimPerWrite,
  reclaimAndClaimWrite,
} from '../../../../core/rooms/join-conditions';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const member = { s: 0, t: t0, e: t0 + 30_000 };
const spec = { account: 'alice', keyHash: 'hAlice', member, heartbeatSince: '2026-01-01T00:00:00.000Z' };

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
        is.joinabilityOpen,
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
        is.joinabilityOpen,
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

describe('classifyClaimFailure: a build mismatch and unmatched criteria come before everything else', () => {
  const server = { h: 'bbbbbbbbbbbbbbbb', b: '2026-01-01T00:00:00Z' };
  const checked = { account: 'alice', protocol: 'aaaaaaaaaaaaaaaa' };

  it('a full room of another build is a Mismatch, naming the server build', () => {
    expect(classifyClaimFailure(roomItem({ protocol: server }), checked, t0)).toEqual({ state: 'Mismatch', server });
  });

  it('the same build, a room without a build, or a room made with the check off: not a mismatch', () => {
    for (const item of [
      roomItem({ protocol: { h: 'aaaaaaaaaaaaaaaa' } }),
      roomItem(),
      roomItem({ protocol: server, protocolCheck: false }),
    ])
      expect(classifyClaimFailure(item, checked, t0)).toEqual({ state: 'Full' });
    expect(classifyClaimFailure(roomItem({ protocol: server }), { account: 'alice' }, t0)).toEqual({ state: 'Full' });
  });

  it('settings that no longer hold the criteria: NotMatching', () => {
    const item = roomItem({ settings: { mode: 'casual' }, players: 0 });
    expect(classifyClaimFailure(item, { account: 'alice', criteria: { mode: 'ranked' } }, t0)).toEqual({
      state: 'NotMatching',
    });
    expect(classifyClaimFailure(item, { account: 'alice', criteria: { mode: 'casual' } }, t0)).toEqual({
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
        { account: 'alice', heartbeatSince: spec.heartbeatSince },
        now,
      ),
    ).toEqual(expected);
  });

  it('a full room with an expired reservation: reclaim exactly that one', () => {
    expect(classifyClaimFailure(roomItem(), { account: 'alice', heartbeatSince: spec.heartbeatSince }, now)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, keyHash: 'hBob' }],
    });
  });

  it("judges a join's reservation by its clock and the room's reservation timeout (no stored expiry)", () => {
    const joinedAt = now - 30_000;
    const members = { bob: { s: 0, t: joinedAt, k: 'hBob' }, carol: { s: 2, t: t0, k: 'hCarol' } };
    expect(classifyClaimFailure(roomItem({ members }), { account: 'alice' }, now)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: members.bob, keyHash: 'hBob' }],
    });
    const fresher = { ...members, bob: { ...members.bob, t: joinedAt + 1 } };
    expect(classifyClaimFailure(roomItem({ members: fresher }), { account: 'alice' }, now)).toEqual({ state: 'Full' });
  });

  it('the account already holds a live slot: AlreadyMember with its key', () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, { account: 'alice' }, now)).toEqual({
      state: 'AlreadyMember',
      member: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' },
      keyHash: 'hA',
    });
  });

  it("the account's own reservation expired: reclaim it (one write gives a fresh slot)", () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 1, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, { account: 'alice' }, now)).toMatchObject({
      state: 'Reclaim',
      expired: [{ account: 'alice' }],
    });
  });
});
