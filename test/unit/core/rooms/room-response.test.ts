import type { SessionDocument, StoredMember } from '../../../../core/rooms/document';
import { adminRoomView, readableBy, roomResponse, sessionRoomView } from '../../../../core/rooms/room-response';
import { emptySinceOf, joinedAfterEnd, sessionOverAt } from '../../../../core/rooms/session-end';
import type { SessionConstants, SessionVisibility } from '../../../../core/rooms/session-model';
import { aRoom } from '../../../helpers/factories';

const t0 = Date.parse('2026-01-01T00:01:00.000Z');
const constants = (visibility: SessionVisibility, sessionEmptyMs: number | null = null): SessionConstants => ({
  maxMembers: 4,
  visibility,
  timeouts: { reservedMs: 1_000, readyMs: null, inactiveMs: null, sessionEmptyMs },
  custom: {},
});
const doc = (members: Record<string, StoredMember>): SessionDocument => ({ members, gone: {} });
const live: StoredMember = { s: 2, t: t0 };
const expiring: StoredMember = { s: 0, t: t0, e: t0 + 1_000 };

describe('the room view at now', () => {
  it('drops members whose time ran out, from members and players, before anything removed them', () => {
    const room = aRoom({ players: 2, constants: constants('open') });
    const view = sessionRoomView(room, doc({ alice: live, bob: expiring }), new Date(t0 + 1_000), 'carol');
    expect(view.players).toBe(1);
    expect(view.members).toEqual([{ account: 'alice', state: 'active', properties: { custom: {} } }]);
    expect(view.template).toBeNull();
    expect(view.properties).toEqual({ joinability: 'open', custom: {} });
  });

  it('shows members to members only, unless the visibility is open', () => {
    const room = aRoom({ players: 1, constants: constants('visible') });
    const d = doc({ alice: { ...live, q: { colour: 'red' } } });
    expect(sessionRoomView(room, d, new Date(t0), 'bob').members).toBeUndefined();
    expect(sessionRoomView(room, d, new Date(t0), 'alice').members).toEqual([
      { account: 'alice', state: 'active', properties: { custom: { colour: 'red' } } },
    ]);
  });

  it("GET room gives live members the server's address once the room is ready with it, never while spawning (issue 10, point 1)", () => {
    const placement = { taskId: 'arn:task/1', host: 'pending', ports: [7777, 7778] };
    const d = doc({ alice: live });
    const spawning = aRoom({ state: 'spawning', players: 1, constants: constants('open'), placement });
    expect(sessionRoomView(spawning, d, new Date(t0), 'alice').server).toBeUndefined();
    const ready = { ...spawning, state: 'ready' as const, address: '203.0.113.7' };
    expect(sessionRoomView(ready, d, new Date(t0), 'alice').server).toEqual({
      host: '203.0.113.7',
      ports: [7777, 7778],
    });
    // Not a member: no address, even of an open room whose members anyone may list.
    expect(sessionRoomView(ready, d, new Date(t0), 'bob').server).toBeUndefined();
    // A ready room with only an unknown placement host (no address learnt) shows none.
    expect(sessionRoomView({ ...ready, address: undefined }, d, new Date(t0), 'alice').server).toBeUndefined();
  });

  it('private: readable only by live members', () => {
    const room = aRoom({ players: 1, constants: constants('private') });
    const d = doc({ alice: expiring });
    expect(readableBy(room, d, 'alice', new Date(t0))).toBe(true);
    expect(readableBy(room, d, 'bob', new Date(t0))).toBe(false);
    expect(readableBy(room, d, 'alice', new Date(t0 + 1_000))).toBe(false);
    expect(readableBy(aRoom({ constants: constants('visible') }), d, 'bob', new Date(t0))).toBe(true);
  });

  it('carries the change number as a quoted ETag', () => {
    expect(roomResponse(200, { room: { changeNumber: 12 } }).headers).toEqual({ etag: '"12"' });
  });
});

describe("an admin's room view", () => {
  const placement = { taskId: 'arn:task/1', host: 'pending', ports: [7777, 7778] };

  it('lists every live member of any visibility with its expiry, and the server once placed', () => {
    const room = aRoom({ state: 'spawning', players: 2, constants: constants('private'), placement });
    const d = doc({ alice: live, bob: expiring });
    const view = adminRoomView(room, d, new Date(t0), 'ops');
    expect(view.members).toEqual([
      { account: 'alice', state: 'active', properties: { custom: {} } },
      { account: 'bob', state: 'reserved', properties: { custom: {} }, expiresAt: new Date(t0 + 1_000).toISOString() },
    ]);
    expect(view.server).toEqual({ host: 'pending', ports: [7777, 7778] });
    const ready = { ...room, state: 'ready' as const, address: '203.0.113.7' };
    expect(adminRoomView(ready, d, new Date(t0), 'ops').server).toEqual({ host: '203.0.113.7', ports: [7777, 7778] });
    // The same room to a player who is no member: none of it.
    const visible = { ...ready, constants: constants('visible') };
    expect(sessionRoomView(visible, d, new Date(t0), 'carol')).not.toHaveProperty('members');
    expect(sessionRoomView(visible, d, new Date(t0), 'carol')).not.toHaveProperty('server');
  });

  it("shows the arbiter with its epoch and successor, and a member's expiry never to players", () => {
    const room = aRoom({ players: 2, constants: constants('open'), host: { epoch: 3, account: 'alice', seenAt: t0 } });
    const d = doc({ alice: live, bob: { ...live, n: 2 } });
    expect(adminRoomView(room, d, new Date(t0), 'ops').host).toEqual({ account: 'alice', epoch: 3, next: 'bob' });
    const players = sessionRoomView(room, doc({ alice: live, bob: expiring }), new Date(t0), 'bob');
    expect(players.members?.every((member) => !('expiresAt' in member))).toBe(true);
  });
});

describe('sessionEmptyMs', () => {
  it('counts from the last departure: a written emptySince or the latest expiry of a member still stored', () => {
    const room = aRoom({ constants: constants('open', 5_000), emptySince: t0 + 300 });
    expect(emptySinceOf(room, doc({ bob: expiring }), new Date(t0 + 2_000))).toBe(t0 + 1_000);
    expect(emptySinceOf(room, doc({}), new Date(t0 + 2_000))).toBe(t0 + 300);
    expect(emptySinceOf(room, doc({ alice: live }), new Date(t0 + 2_000))).toBeUndefined();
  });

  it('ends the session exactly sessionEmptyMs after it became empty (0: at once, null: never)', () => {
    const room = aRoom({ constants: constants('open', 5_000) });
    const d = doc({ bob: expiring });
    expect(sessionOverAt(room, d, new Date(t0 + 5_999))).toBe(false);
    expect(sessionOverAt(room, d, new Date(t0 + 6_000))).toBe(true);
    expect(sessionOverAt(aRoom({ constants: constants('open', 0) }), d, new Date(t0 + 1_000))).toBe(true);
    expect(sessionOverAt(aRoom({ constants: constants('open', null) }), d, new Date(t0 + 10 ** 9))).toBe(false);
  });

  it("tells a join that landed in an ended session from a creator's first claim", () => {
    const room = aRoom({ constants: constants('open', 0), players: 2 });
    const joiner: StoredMember = { s: 0, t: t0 + 2_000, e: t0 + 3_000 };
    expect(joinedAfterEnd(room, doc({ bob: expiring, carol: joiner }), 'carol')).toBe(true);
    expect(joinedAfterEnd(room, doc({ alice: live, carol: joiner }), 'carol')).toBe(false);
    expect(joinedAfterEnd(room, doc({ carol: joiner }), 'carol')).toBe(false);
  });
});
