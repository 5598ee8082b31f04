import { DependencyUnavailableError } from '../../../../core/errors';
import { joinRoom, type JoinRoomDependencies } from '../../../../core/rooms/join';
import { RoomFullError, RoomNotJoinableError } from '../../../../core/rooms/join-errors';
import { PlatformCache } from '../../../../core/infra/platform-cache';
import type { ClaimResult, SessionRead } from '../../../../core/rooms/room-store';
import { aRoom } from '../../../helpers/factories';
import { ProtocolMismatchError } from '../../../../core/versions/errors';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const room = aRoom({ state: 'ready', placement: { taskId: 't', host: 'h', ports: [1] }, maxPlayers: 2 });
const read: SessionRead = { room, doc: { members: {}, gone: {} } };

/** A session store that answers each claim from a script and records the undo. */
function fakeSessions(claims: ClaimResult[]) {
  const undone: unknown[] = [];
  let calls = 0;
  const sessions: JoinRoomDependencies['sessions'] = {
    read: async () => read,
    claim: async () => claims[Math.min(calls++, claims.length - 1)]!,
    reclaimAndClaim: async () => ({ state: 'Full' }),
    reissueKey: async () => 'Reissued',
    undoClaim: async (_roomId, undo) => {
      undone.push(undo);
    },
  };
  return { sessions, undone, claimCalls: () => calls };
}

function deps(
  sessions: JoinRoomDependencies['sessions'],
  extra: Partial<JoinRoomDependencies> = {},
): JoinRoomDependencies {
  let clock = t0.getTime();
  return {
    sessions,
    cache: new PlatformCache(),
    now: () => new Date(clock),
    // Each pause moves the clock: a test of the deadline, not of time.
    sleep: async (ms) => {
      clock += ms;
    },
    answerBy: new Date(t0.getTime() + 1_000),
    heartbeatTimeoutS: 10,
    ...extra,
  };
}

/** Account checks that know nothing from memory and refuse once asked. */
const refusing = (refusal: Error) => ({ known: async () => undefined, decide: () => Promise.reject(refusal) });

const claimed: ClaimResult = { state: 'Claimed', roomState: 'ready', players: 1, changeNumber: 2 };
const command = { roomId: room.roomId, account: 'alice', scopes: [] };

describe('joinRoom', () => {
  it('answers 503 UNAVAILABLE with Retry-After, never ROOM_FULL, when contention outlasts the deadline', async () => {
    const fake = fakeSessions([{ state: 'Contention', cause: new Error('throttled') }]);
    const error = await joinRoom(command, deps(fake.sessions)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).not.toBeInstanceOf(RoomFullError);
    expect((error as DependencyUnavailableError).headers).toEqual({ 'retry-after': '1' });
    expect(fake.claimCalls()).toBeGreaterThan(3);
  });

  it('keeps trying through contention and gets the slot', async () => {
    const fake = fakeSessions([{ state: 'Contention', cause: new Error('throttled') }, claimed]);
    const result = await joinRoom(command, deps(fake.sessions));
    expect(result.reservation).toMatchObject({ host: 'h', ports: [1] });
    expect(result.room.players).toBe(1);
  });

  it.each(['visible', 'private'] as const)(
    'refuses a %s session saying its visibility refused, not its joinability',
    async (visibility) => {
      const shown = aRoom({
        state: 'ready',
        placement: { taskId: 't', host: 'h', ports: [1] },
        constants: {
          maxMembers: 8,
          visibility,
          timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
          custom: {},
        },
      });
      const fake = fakeSessions([claimed]);
      const error = await joinRoom(
        { ...command, roomId: shown.roomId },
        {
          ...deps(fake.sessions),
          sessions: { ...fake.sessions, read: async () => ({ room: shown, doc: { members: {}, gone: {} } }) },
        },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RoomNotJoinableError);
      expect((error as RoomNotJoinableError).message).toBe(
        `Room '${shown.roomId}' cannot be joined: its visibility is ${visibility} (only an open session takes joins, whatever its joinability).`,
      );
      expect(fake.claimCalls()).toBe(0);
    },
  );

  it('answers ROOM_FULL only when the failed condition shows every slot held', async () => {
    const fake = fakeSessions([{ state: 'Full' }]);
    await expect(joinRoom(command, deps(fake.sessions))).rejects.toBeInstanceOf(RoomFullError);
  });

  it('undoes exactly its own claim (member and key) when the account checks refuse, and answers their error', async () => {
    const fake = fakeSessions([claimed]);
    const refusal = new Error('rate limited');
    const error = await joinRoom(command, deps(fake.sessions, { accountChecks: refusing(refusal) })).catch(
      (e: unknown) => e,
    );
    expect(error).toBe(refusal);
    expect(fake.undone).toEqual([{ account: 'alice', keyHash: expect.stringMatching(/^[\w-]{22}$/), reissued: false }]);
  });

  it("prefers the account checks' refusal over the room's (a banned player learns they are banned)", async () => {
    const fake = fakeSessions([{ state: 'Full' }]);
    const refusal = new Error('banned');
    await expect(joinRoom(command, deps(fake.sessions, { accountChecks: refusing(refusal) }))).rejects.toBe(refusal);
    expect(fake.undone).toEqual([]);
  });

  it('reads a settled room once, then joins it with the claim alone', async () => {
    const fake = fakeSessions([claimed]);
    const reads = jest.fn(async () => read);
    const sessions = { ...fake.sessions, read: reads };
    const shared = deps(sessions);
    await joinRoom(command, shared);
    await joinRoom({ ...command, account: 'bob' }, shared);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('refuses from memory before claiming when the account checks already know the refusal', async () => {
    const fake = fakeSessions([claimed]);
    const refusal = new Error('rate limited until the oldest admission leaves the window');
    const decide = jest.fn(async () => undefined);
    const error = await joinRoom(
      command,
      deps(fake.sessions, { accountChecks: { known: () => Promise.reject(refusal), decide } }),
    ).catch((e: unknown) => e);
    expect(error).toBe(refusal);
    expect(fake.claimCalls()).toBe(0);
    expect(decide).not.toHaveBeenCalled();
  });

  it('shares the reads of a spawning room among its waiters: a stampede does not multiply them', async () => {
    const spawning = aRoom({ state: 'spawning', maxPlayers: 100 });
    const ready = { ...spawning, state: 'ready' as const, placement: { taskId: 't', host: 'h', ports: [1] } };
    let reads = 0;
    let clock = t0.getTime();
    const sessions: JoinRoomDependencies['sessions'] = {
      // The first read is the claim's; the server is ready from the fifth read on.
      read: async () => ({ room: ++reads >= 5 ? ready : spawning, doc: { members: {}, gone: {} } }),
      claim: async () => ({ state: 'Claimed', roomState: 'spawning', players: 2, changeNumber: 2 }),
      reclaimAndClaim: async () => ({ state: 'Full' }),
      reissueKey: async () => 'Reissued',
      undoClaim: async () => undefined,
    };
    const shared: JoinRoomDependencies = {
      sessions,
      // The cache runs on the test's clock: a shared read lasts 50 ms of it.
      cache: new PlatformCache({ nowMs: () => clock }),
      now: () => new Date(clock),
      // Every waiter's pause moves the one clock a little: they wake close together, as in a stampede.
      sleep: async () => {
        clock += 1;
        await new Promise((resolve) => setImmediate(resolve));
      },
      answerBy: new Date(t0.getTime() + 60_000),
      heartbeatTimeoutS: 10,
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => joinRoom({ roomId: spawning.roomId, account: `p${i}`, scopes: [] }, shared)),
    );
    expect(answers.every((a) => a.room.state === 'ready' && !a.spawning)).toBe(true);
    // Each of the 50 waiters polling alone needs at least 50 × 4 reads.
    expect(reads).toBeLessThan(20);
  });
});

describe('joinRoom: a client of another build', () => {
  it("undoes a refused re-key to the old key and the old key's build", async () => {
    const held: ClaimResult = {
      state: 'AlreadyMember',
      member: { s: 0, t: t0.getTime(), v: 'b'.repeat(16) },
      keyHash: 'old',
    };
    const fake = fakeSessions([held]);
    const refusal = new Error('rate limited');
    const joining = { ...command, protocol: { hash: 'a'.repeat(16) } };
    await expect(joinRoom(joining, deps(fake.sessions, { accountChecks: refusing(refusal) }))).rejects.toBe(refusal);
    expect(fake.undone).toEqual([
      expect.objectContaining({ reissued: true, previousKeyHash: 'old', previousBuild: 'b'.repeat(16) }),
    ]);
  });

  const client = { hash: 'aaaaaaaaaaaaaaaa' };
  const server = { h: 'bbbbbbbbbbbbbbbb' };
  // The room as the failed write found it: its server replaced since the cached read (epoch 3).
  const found = { ...room, protocol: server, host: { epoch: 3, seenAt: t0.getTime() } };

  /** Versions that explain nothing and record what the room's server is told, at which epoch. */
  function telling() {
    const told: { roomId: string; epoch: number; account: unknown }[] = [];
    const versions: NonNullable<JoinRoomDependencies['versions']> = {
      components: { componentsOf: async () => undefined },
      deliver: async (roomId, notice, epoch) => {
        told.push({ roomId, epoch, account: notice.params.account });
        return 'delivered';
      },
    };
    return { told, versions };
  }

  it('tells the server of the room as the refusing write found it, at its current epoch', async () => {
    const fake = fakeSessions([{ state: 'Mismatch', server, room: found }]);
    const { told, versions } = telling();
    const error = await joinRoom({ ...command, protocol: client }, deps(fake.sessions, { versions })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProtocolMismatchError);
    expect(told).toEqual([{ roomId: room.roomId, epoch: 3, account: 'alice' }]);
  });

  it('re-keys a slot it holds with the build it sends now; a server of another build refuses the re-key', async () => {
    const held: ClaimResult = { state: 'AlreadyMember', member: { s: 0, t: t0.getTime() }, keyHash: 'old' };
    // Claimed again only if the refused re-key were taken for a changed member.
    const fake = fakeSessions([held, { state: 'Full' }]);
    const reissues: unknown[] = [];
    const sessions: JoinRoomDependencies['sessions'] = {
      ...fake.sessions,
      reissueKey: async (_roomId, change) => {
        reissues.push(change);
        return { state: 'Mismatch', server, room: found };
      },
    };
    const { told, versions } = telling();
    const error = await joinRoom({ ...command, protocol: client }, deps(sessions, { versions })).catch(
      (e: unknown) => e,
    );
    expect(reissues).toEqual([expect.objectContaining({ account: 'alice', oldKeyHash: 'old', protocol: client.hash })]);
    expect(error).toBeInstanceOf(ProtocolMismatchError);
    expect((error as ProtocolMismatchError).hashes).toEqual({ clientHash: client.hash, serverHash: server.h });
    expect(told).toEqual([{ roomId: room.roomId, epoch: 3, account: 'alice' }]);
  });
});
