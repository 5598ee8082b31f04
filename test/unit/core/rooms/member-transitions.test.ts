import { memberStates, type MemberState } from '../../../../core/rooms/session-model';
import {
  MemberTransitionInvalidError,
  selfTransitionAllowed,
  transitionMember,
} from '../../../../core/rooms/member-transitions';
import { memberStateCode, type StoredMember } from '../../../../core/rooms/document';

const timeouts = { reservedMs: 1_000, readyMs: 2_000, inactiveMs: 0, sessionEmptyMs: null };
const member = (state: MemberState, extra: Partial<StoredMember> = {}): StoredMember => ({
  s: memberStateCode(state),
  t: 100,
  ...extra,
});

describe('which state changes a member may make itself', () => {
  it.each([
    ['reserved', 'ready', 'dedicated', true],
    ['reserved', 'active', 'dedicated', false],
    ['ready', 'active', 'dedicated', false],
    ['reserved', 'active', 'peerHosted', true],
    ['ready', 'active', 'peerHosted', true],
    ['active', 'inactive', 'dedicated', true],
    ['inactive', 'active', 'dedicated', true],
    ['active', 'ready', 'peerHosted', false],
    ['ready', 'inactive', 'peerHosted', false],
    ['reserved', 'inactive', 'dedicated', false],
    ['inactive', 'ready', 'dedicated', false],
  ] as const)('%s → %s in a %s session: %s', (from, to, hosting, allowed) => {
    expect(selfTransitionAllowed(from, to, hosting)).toBe(allowed);
  });

  it('allows staying in the same state (nothing changes, its timeout keeps running)', () => {
    for (const state of ['ready', 'active', 'inactive'] as const) {
      const m = member(state, { e: 500 });
      expect(transitionMember(m, state, 9_999, timeouts, 'dedicated')).toBe(m);
    }
    expect(memberStates).toContain('reserved');
  });
});

describe('transitionMember', () => {
  it("restarts the clock, sets the new state's expiry, keeps the used key and drops the pending timeout", () => {
    const confirmed = member('active', { u: 'req-1', a: 50, b: member('reserved'), c: ['play'], q: { colour: 'red' } });
    expect(transitionMember(confirmed, 'inactive', 5_000, timeouts, 'dedicated')).toEqual({
      s: memberStateCode('inactive'),
      t: 5_000,
      e: 5_000,
      u: 'req-1',
      a: 50,
      c: ['play'],
      q: { colour: 'red' },
    });
    const pending = member('reserved', { p: 30_000 });
    expect(transitionMember(pending, 'ready', 7_000, timeouts, 'dedicated')).toEqual({ s: 1, t: 7_000, e: 9_000 });
    expect(transitionMember(member('inactive', { e: 1 }), 'active', 8_000, timeouts, 'dedicated')).toEqual({
      s: 2,
      t: 8_000,
    });
  });

  it('refuses an illegal change with a 400 naming body.state', () => {
    let error: unknown;
    try {
      transitionMember(member('reserved'), 'active', 1, timeouts, 'dedicated');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MemberTransitionInvalidError);
    expect((error as MemberTransitionInvalidError).status).toBe(400);
    expect((error as MemberTransitionInvalidError).details).toEqual({
      fields: [{ field: 'body.state', message: 'cannot go from reserved to active' }],
    });
    expect((error as Error).message).toMatch(/joined/);
  });
});
