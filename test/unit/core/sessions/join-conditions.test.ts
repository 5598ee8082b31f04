import {
  claimUpdate,
  classifyClaimFailure,
  joinClauses,
  maxReclaimPerWrite,
  reclaimAndClaimUpdate,
} from '../../../../core/sessions/join-conditions';

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

describe('claimUpdate: the join is one conditional UpdateItem', () => {
  it('adds the member holding its key, a player and a change in one SET, the state assigned to itself for UPDATED_NEW', () => {
    const update = claimUpdate(spec);
    expect(update.UpdateExpression).toBe(
      'SET #members.#a = :m, #players = #players + :one, #cn = #cn + :one, #state = #state',
    );
    expect(update.ConditionExpression).toBe(
      [
        joinClauses.memberAbsent,
        joinClauses.roomHasFreeSlot,
        joinClauses.roomIsLive,
        joinClauses.serverHeardFrom,
        joinClauses.joinabilityOpen,
      ].join(' AND '),
    );
    expect(update.ExpressionAttributeNames).toMatchObject({ '#a': 'alice' });
    // The key hash is stored once, in the member: the account is not repeated in a key map.
    expect(Object.values(update.ExpressionAttributeNames)).not.toContain('keys');
    expect(update.ExpressionAttributeValues).toEqual({
      ':m': { ...member, k: 'hAlice' },
      ':one': 1,
      ':spawning': 'spawning',
      ':ready': 'ready',
      ':open': 'open',
      ':since': spec.heartbeatSince,
    });
  });

  it('leaves the heartbeat out when no cutoff is given', () => {
    const { heartbeatSince: _since, ...withoutCutoff } = spec;
    expect(claimUpdate(withoutCutoff).ConditionExpression).not.toContain('lastHeartbeatAt');
  });
});

describe('reclaimAndClaimUpdate: remove exactly the expired members and claim, one write', () => {
  it('removes each expired member on condition it is unchanged (same key, same clock), and widens the cap', () => {
    const expired = [{ account: 'bob', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, keyHash: 'hBob' }];
    const update = reclaimAndClaimUpdate({ ...spec, expired, maxPlayers: 2 });
    expect(update.UpdateExpression).toMatch(/ REMOVE #members\.#x0$/);
    expect(update.ConditionExpression).toContain('#members.#x0.k = :k0 AND #members.#x0.t = :t0');
    expect(update.ConditionExpression).toContain(joinClauses.memberAbsent);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':delta': 0, ':cap': 3, ':k0': 'hBob', ':t0': t0 });
  });

  it("overwrites the joiner's own expired entry (and so its old key) instead of removing it", () => {
    const expired = [{ account: 'alice', member: { s: 0, t: t0 - 5, e: t0, k: 'hOld' }, keyHash: 'hOld' }];
    const update = reclaimAndClaimUpdate({ ...spec, expired, maxPlayers: 2 });
    expect(update.UpdateExpression).not.toContain('REMOVE');
    expect(update.ExpressionAttributeValues[':m']).toEqual({ ...member, k: 'hAlice' });
    expect(update.ConditionExpression).toContain('#members.#a.t = :ownT');
    expect(update.ConditionExpression).not.toContain(joinClauses.memberAbsent);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':delta': 0, ':cap': 3 });
  });

  it(`removes at most ${maxReclaimPerWrite} members per write, keeping the expression under 4 KB`, () => {
    const expired = Array.from({ length: 100 }, (_, i) => ({
      account: `player-${i}`,
      member: { s: 0, t: t0, e: t0 },
      keyHash: `h${i}`.padEnd(22, 'x'),
    }));
    const update = reclaimAndClaimUpdate({ ...spec, expired, maxPlayers: 100 });
    expect(update.ExpressionAttributeValues[':cap']).toBe(100 + maxReclaimPerWrite);
    expect(update.UpdateExpression.length + update.ConditionExpression.length).toBeLessThan(4096);
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
      classifyClaimFailure(item as Record<string, unknown> | undefined, 'alice', now, spec.heartbeatSince),
    ).toEqual(expected);
  });

  it('a full room with an expired reservation: reclaim exactly that one', () => {
    expect(classifyClaimFailure(roomItem(), 'alice', now, spec.heartbeatSince)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: { s: 0, t: t0, e: t0 + 1_000, k: 'hBob' }, keyHash: 'hBob' }],
    });
  });

  it("judges a join's reservation by its clock and the room's reservation timeout (no stored expiry)", () => {
    const joinedAt = now - 30_000;
    const members = { bob: { s: 0, t: joinedAt, k: 'hBob' }, carol: { s: 2, t: t0, k: 'hCarol' } };
    expect(classifyClaimFailure(roomItem({ members }), 'alice', now)).toEqual({
      state: 'Reclaim',
      expired: [{ account: 'bob', member: members.bob, keyHash: 'hBob' }],
    });
    const fresher = { ...members, bob: { ...members.bob, t: joinedAt + 1 } };
    expect(classifyClaimFailure(roomItem({ members: fresher }), 'alice', now)).toEqual({ state: 'Full' });
  });

  it('the account already holds a live slot: AlreadyMember with its key', () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, 'alice', now)).toEqual({
      state: 'AlreadyMember',
      member: { s: 0, t: t0, e: t0 + 60_000, k: 'hA' },
      keyHash: 'hA',
    });
  });

  it("the account's own reservation expired: reclaim it (one write gives a fresh slot)", () => {
    const item = roomItem({ members: { alice: { s: 0, t: t0, e: t0 + 1, k: 'hA' } }, players: 1 });
    expect(classifyClaimFailure(item, 'alice', now)).toMatchObject({
      state: 'Reclaim',
      expired: [{ account: 'alice' }],
    });
  });
});
