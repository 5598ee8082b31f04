import { costBoundReached, roomBoundsOf, sidecarBoundsOf } from '../../../../core/rooms/cost-bounds';
import type { SessionDocument } from '../../../../core/rooms/document';
import { defaultConstants } from '../../../../core/rooms/session-model';
import { aRoom } from '../../../helpers/factories';

/** The cost-bound rule alone: which live room the platform ends at `now`, and why. */
const created = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(created + s * 1000);
const iso = (s: number) => at(s).toISOString();
const defaults = { emptyGraceS: 60, maxLifetimeS: 3600 };
const empty: SessionDocument = { members: {}, gone: {} };
const ready = aRoom({ state: 'ready', createdAt: iso(0), readyAt: iso(10), reservationTimeoutS: 30 });

describe('costBoundReached', () => {
  it('counts an empty ready room from when it became ready, and ends it at the grace', () => {
    expect(costBoundReached(ready, empty, at(69), defaults)).toBeUndefined();
    expect(costBoundReached(ready, empty, at(70), defaults)).toBe('empty');
  });

  it('does not count a fresh room whose creator holds a pending reservation as empty until it expires', () => {
    // Pending: the creator's reservation runs reservationTimeoutS (30 s) from `inited` (10 s).
    const withCreator: SessionDocument = { members: { alice: { s: 0, t: created, p: 30_000 } }, gone: {} };
    expect(costBoundReached(ready, withCreator, at(39), defaults)).toBeUndefined();
    expect(costBoundReached(ready, withCreator, at(99), defaults)).toBeUndefined();
    // Expired at 40 s: empty from then, ended 60 s later.
    expect(costBoundReached(ready, withCreator, at(100), defaults)).toBe('empty');
  });

  it('counts from the last departure, and never ends a room with a live member for emptiness', () => {
    const joined: SessionDocument = { members: { bob: { s: 1, t: created + 20_000 } }, gone: {} };
    expect(costBoundReached(ready, joined, at(3000), defaults)).toBeUndefined();
    const left = { ...ready, emptySince: created + 1000_000 };
    expect(costBoundReached(left, empty, at(1059), defaults)).toBeUndefined();
    expect(costBoundReached(left, empty, at(1060), defaults)).toBe('empty');
  });

  it('ends a ready room at its maximum lifetime from creation, players or not', () => {
    const joined: SessionDocument = { members: { bob: { s: 1, t: created + 20_000 } }, gone: {} };
    expect(costBoundReached(ready, joined, at(3599), defaults)).toBeUndefined();
    expect(costBoundReached(ready, joined, at(3600), defaults)).toBe('lifetime');
    // An unreadable document: the lifetime still holds.
    expect(costBoundReached(ready, undefined, at(3600), defaults)).toBe('lifetime');
    expect(costBoundReached(ready, undefined, at(3000), defaults)).toBeUndefined();
  });

  it("uses the room's own bounds over the deployment's", () => {
    const own = { ...ready, bounds: { emptyGraceS: 5, maxLifetimeS: 100 } };
    expect(costBoundReached(own, empty, at(15), defaults)).toBe('empty');
    expect(costBoundReached({ ...own, readyAt: iso(99) }, empty, at(100), defaults)).toBe('lifetime');
  });

  it('leaves spawning, ended and peer-hosted rooms alone', () => {
    const late = at(100_000);
    expect(costBoundReached({ ...ready, state: 'spawning' }, empty, late, defaults)).toBeUndefined();
    expect(costBoundReached({ ...ready, state: 'closed' }, empty, late, defaults)).toBeUndefined();
    expect(costBoundReached({ ...ready, hosting: 'peerHosted' }, empty, late, defaults)).toBeUndefined();
  });
});

describe('roomBoundsOf', () => {
  it("takes the configuration's overrides, else the deployment's defaults", () => {
    const deployment = { emptyRoomGraceS: 60, maxLifetimeS: 21_600 };
    expect(roomBoundsOf({}, deployment)).toEqual({ emptyGraceS: 60, maxLifetimeS: 21_600 });
    expect(roomBoundsOf({ emptyRoomGraceS: 10, maxLifetimeS: 600 }, deployment)).toEqual({
      emptyGraceS: 10,
      maxLifetimeS: 600,
    });
  });
});

describe('sidecarBoundsOf', () => {
  const bounds = { emptyGraceS: 60, maxLifetimeS: 3600 };
  const timeouts = { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null };
  const withTimeouts = (overrides: { reservedMs?: number | null; readyMs?: number | null }) =>
    aRoom({ bounds, constants: { ...defaultConstants(ready), timeouts: { ...timeouts, ...overrides } } });

  it("gives the sidecar the room's bounds and how long a member holds a place without joined", () => {
    // A template whose `ready` times out: reserved, then ready.
    expect(sidecarBoundsOf(withTimeouts({ readyMs: 45_500 }))).toEqual({
      maxLifetimeS: 3600,
      emptyGraceS: 60,
      memberHoldS: 76,
    });
  });

  it('gives no member hold where a member may wait without joined for ever, nor to a standby server', () => {
    // The default template: `ready` never times out, and the platform keeps a room whose members wait in it.
    expect(sidecarBoundsOf(aRoom({ bounds, reservationTimeoutS: 45 }))).toEqual({
      maxLifetimeS: 3600,
      emptyGraceS: 60,
    });
    expect(sidecarBoundsOf(withTimeouts({ reservedMs: null, readyMs: 10_000 }))).toEqual({
      maxLifetimeS: 3600,
      emptyGraceS: 60,
    });
    expect(sidecarBoundsOf({ ...withTimeouts({ readyMs: 10_000 }), standby: true })).toEqual({
      maxLifetimeS: 3600,
      emptyGraceS: 60,
    });
  });

  it('gives nothing for a room without bounds', () => {
    expect(sidecarBoundsOf(aRoom())).toBeUndefined();
  });
});
