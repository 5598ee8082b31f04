import {
  afterPlayers,
  afterReady,
  selfBoundReached,
  selfBoundsOf,
  type RoomWatch,
  type SelfBounds,
} from '../../../../containers/controller/bounds';
import { sidecarEnvironment } from '../../../../core/gameservers/sidecar-launch';
import { sidecarEnvironmentSchema } from '../../../../core/gameservers/sidecar-environment';
import type { SpawnRequest } from '../../../../core/gameservers/spawner';
import { aConfiguration } from '../../../helpers/session-factories';

/** The sidecar's own bounds, in its own milliseconds: lifetime, empty room, platform out of reach. */
const s = (seconds: number) => seconds * 1000;
const bounds: SelfBounds = {
  maxLifetimeMs: s(3600),
  emptyGraceMs: s(60),
  memberHoldMs: s(30),
  marginMs: s(180),
  unreachableMs: s(900),
};
const started: RoomWatch = { since: 0, lastDelivered: 0 };
/** A room that is ready at 10 s and whose platform took a send just now. */
const live = (now: number, watch: RoomWatch = afterReady(started, s(10), false)): RoomWatch => ({
  ...watch,
  lastDelivered: now,
});

describe('selfBoundReached: lifetime', () => {
  it('ends the room at its lifetime plus the margin, players or not', () => {
    const playing = afterPlayers(live(0), 3, s(20));
    expect(selfBoundReached(live(s(3779), playing), bounds, s(3779))).toBeUndefined();
    expect(selfBoundReached(live(s(3780), playing), bounds, s(3780))).toBe('lifetime');
  });

  it("counts a standby server's lifetime again from its hand-over", () => {
    const handedOver = afterPlayers(afterReady(started, s(3000), true), 1, s(3010));
    expect(selfBoundReached(live(s(3780), handedOver), bounds, s(3780))).toBeUndefined();
    expect(selfBoundReached(live(s(6780), handedOver), bounds, s(6780))).toBe('lifetime');
  });

  it('has no lifetime bound without ROOM_MAX_LIFETIME_S', () => {
    const { maxLifetimeMs: _lifetime, ...unbounded } = bounds;
    const playing = afterPlayers(live(0), 1, s(20));
    expect(selfBoundReached(live(s(100_000), playing), unbounded, s(100_000))).toBeUndefined();
  });
});

describe('selfBoundReached: empty', () => {
  it('ends a room nobody confirmed after the member hold, the grace and the margin from inited', () => {
    // Ready at 10 s: 10 + 30 + 60 + 180 = 280 s.
    expect(selfBoundReached(live(s(279)), bounds, s(279))).toBeUndefined();
    expect(selfBoundReached(live(s(280)), bounds, s(280))).toBe('empty');
  });

  it('never ends a room while a confirmed player is in it, and counts again from the last one leaving', () => {
    const joined = afterPlayers(live(0), 1, s(20));
    expect(selfBoundReached(live(s(2000), joined), bounds, s(2000))).toBeUndefined();
    const left = afterPlayers(joined, 0, s(2000));
    expect(selfBoundReached(live(s(2269), left), bounds, s(2269))).toBeUndefined();
    expect(selfBoundReached(live(s(2270), left), bounds, s(2270))).toBe('empty');
  });

  it('keeps the clock of an empty room when another count of none is reported', () => {
    const left = afterPlayers(afterPlayers(live(0), 1, s(20)), 0, s(100));
    expect(afterPlayers(left, 0, s(200)).emptySince).toBe(s(100));
  });

  it('has no empty bound before inited, for a standby server before its hand-over, or without a member hold', () => {
    expect(selfBoundReached(live(s(3000), started), bounds, s(3000))).toBeUndefined();
    const { memberHoldMs: _hold, ...unknownHold } = bounds;
    expect(selfBoundReached(live(s(3000)), unknownHold, s(3000))).toBeUndefined();
  });
});

describe('selfBoundReached: platform unreachable', () => {
  it('ends the room once no send reached the request queue for PLATFORM_UNREACHABLE_S', () => {
    const playing = afterPlayers(live(0), 2, s(20));
    const lastSend = { ...playing, lastDelivered: s(100) };
    expect(selfBoundReached(lastSend, bounds, s(999))).toBeUndefined();
    expect(selfBoundReached(lastSend, bounds, s(1000))).toBe('unwatched');
  });

  it('rides out a stall far longer than the 25 s ones the platform sees', () => {
    const playing = afterPlayers(live(0), 2, s(20));
    expect(selfBoundReached({ ...playing, lastDelivered: s(100) }, bounds, s(100 + 25 * 20))).toBeUndefined();
  });
});

describe('selfBoundsOf: what the spawner sets, as the sidecar reads it', () => {
  const request = (overrides: Partial<SpawnRequest> = {}): SpawnRequest => ({
    roomId: 'room-1',
    region: 'local',
    configuration: aConfiguration(),
    roomSettings: {},
    maxPlayers: 8,
    loginAccessToken: 'token',
    ...overrides,
  });
  const settings = { region: 'local', controllerRequestQueueUrl: 'q', replyQueuePrefix: 'p-', discoveryServices: {} };
  const parsed = (spawn: SpawnRequest) =>
    selfBoundsOf(sidecarEnvironmentSchema.parse(sidecarEnvironment(spawn, [7777], '/game', settings)));

  it("passes the room's bounds to the sidecar, with the default margin and unreachable bound", () => {
    const spawn = request({ bounds: { maxLifetimeS: 600, emptyGraceS: 60, memberHoldS: 30 } });
    expect(parsed(spawn)).toEqual({
      maxLifetimeMs: s(600),
      emptyGraceMs: s(60),
      memberHoldMs: s(30),
      marginMs: s(180),
      unreachableMs: s(900),
    });
  });

  it('leaves out the empty bound when the member hold is unknown, and everything but the unreachable bound without bounds', () => {
    expect(parsed(request({ bounds: { maxLifetimeS: 600, emptyGraceS: 60 } })).memberHoldMs).toBeUndefined();
    expect(parsed(request())).toEqual({
      maxLifetimeMs: undefined,
      emptyGraceMs: undefined,
      memberHoldMs: undefined,
      marginMs: s(180),
      unreachableMs: s(900),
    });
  });
});
