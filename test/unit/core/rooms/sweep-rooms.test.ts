import type { SpawnRequest, Spawner } from '../../../../core/gameservers/spawner';
import type { SweeperMemory } from '../../../../core/rooms/heartbeat-evidence';
import type { Room, RoomFailureReason } from '../../../../core/rooms/model';
import type { TransitionResult } from '../../../../core/rooms/room-store';
import { sweepRooms, type SweepDependencies } from '../../../../core/rooms/sweep';
import type { SessionRead } from '../../../../core/rooms/room-store';
import { allOf, holds } from '../../../../core/rooms/room-expression';
import { roomItem } from '../../../../core/rooms/room-item';
import { aRoom } from '../../../helpers/factories';
import { InMemoryLiveRooms } from '../../../helpers/fakes/live-rooms';
import { testSweepPolicy } from '../../../helpers/sweep-policy';

/**
 * The sweeper's rules on the in-memory index: which live rooms it fails, which tasks it stops,
 * which rooms it frees slots in, and that it works only from what the index hands it.
 */
const now = new Date('2026-01-01T00:10:00.000Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const policy = testSweepPolicy;

function world(options: { backlog?: number; costs?: SweepDependencies['costs'] } = {}) {
  const live = new InMemoryLiveRooms();
  const failed: { roomId: string; reason: RoomFailureReason }[] = [];
  const closed: string[] = [];
  const ended: string[] = [];
  const hostLost: string[] = [];
  const stopped: string[] = [];
  const reclaimed: { roomId: string; read?: SessionRead }[] = [];
  let memory: SweeperMemory = { lastSweepAt: secondsAgo(5) };
  const spawner: Spawner = {
    spawn: (_request: SpawnRequest) => Promise.reject(new Error('the sweeper never spawns')),
    stop: async (taskId) => {
      stopped.push(taskId);
    },
  };
  const deps: SweepDependencies = {
    live,
    members: {
      reclaimExpired: async (roomId, _now, read) => {
        reclaimed.push({ roomId, read });
        return 1;
      },
      read: async (roomId) => (await live.liveRooms()).find((e) => e.room.roomId === roomId) as SessionRead | undefined,
    },
    rooms: {
      markFailed: async (roomId, reason): Promise<TransitionResult> => {
        const entry = (await live.liveRooms()).find((e) => e.room.roomId === roomId);
        // As the store's condition: only a live room fails, once.
        if (!entry) return { applied: false };
        live.end(roomId);
        failed.push({ roomId, reason });
        return { applied: true, room: { ...entry.room, state: 'failed', failureReason: reason } };
      },
      markClosed: async (roomId, _now, unchangedSince): Promise<TransitionResult> => {
        const entry = (await live.liveRooms()).find((e) => e.room.roomId === roomId);
        // As the store's condition: only a ready room closes, and only if unchanged when asked.
        if (!entry || entry.room.state !== 'ready') return { applied: false };
        if (unchangedSince && entry.room.changeNumber !== unchangedSince.changeNumber) return { applied: false };
        live.end(roomId);
        closed.push(roomId);
        return { applied: true, room: { ...entry.room, state: 'closed' } };
      },
      endSession: async (roomId, changeNumber) => {
        const entry = (await live.liveRooms()).find((e) => e.room.roomId === roomId);
        // As the store's condition: only while unchanged since the read.
        if (!entry || entry.room.changeNumber !== changeNumber) return false;
        live.end(roomId);
        ended.push(roomId);
        return true;
      },
      writeSession: async (roomId, write) => {
        const entry = (await live.liveRooms()).find((e) => e.room.roomId === roomId) as SessionRead | undefined;
        // As the store: the write's own condition, judged on the item the room would be stored as.
        if (!entry || !holds(write.condition ?? allOf(), roomItem(entry.room, entry.doc.members))) {
          return { applied: false };
        }
        live.end(roomId);
        if (write.ends) hostLost.push(roomId);
        return { applied: true, read: entry };
      },
    },
    spawner,
    memory: {
      read: async () => memory,
      write: async (next) => {
        memory = next;
      },
    },
    backlog: async () => options.backlog ?? 0,
    now: () => now,
    ...(options.costs ? { costs: options.costs } : {}),
  };
  return {
    live,
    failed,
    closed,
    ended,
    hostLost,
    stopped,
    reclaimed,
    sweep: () => sweepRooms(deps, policy),
    sweepWith: (more: Partial<SweepDependencies>) => sweepRooms({ ...deps, ...more }, policy),
  };
}

const placed = (roomId: string) => ({ taskId: `task-${roomId}`, host: '127.0.0.1', ports: [4000] });
const room = (overrides: Partial<Room> & { roomId: string }): Room =>
  aRoom({ placement: placed(overrides.roomId), ...overrides });

describe('sweepRooms', () => {
  it('ends a session without migrateHost whose host is silent past hostTimeoutMs or gone; spares the others', async () => {
    const w = world();
    const session = (migrateHost: boolean) => ({
      maxMembers: 8,
      visibility: 'open' as const,
      timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
      migrateHost,
      hostTimeoutMs: 10_000,
    });
    const hosted = (roomId: string, migrateHost: boolean, seenMsAgo: number) =>
      aRoom({
        roomId,
        state: 'ready',
        hosting: 'peerHosted',
        constants: session(migrateHost),
        host: { epoch: 1, account: 'alice', seenAt: now.getTime() - seenMsAgo },
      });
    const alice = { members: { alice: { s: 2, t: now.getTime() - 60_000 }, bob: { s: 2, t: 0 } }, gone: {} };
    w.live.save(hosted('silent', false, 11_000), alice);
    w.live.save(hosted('heard', false, 9_000), alice);
    w.live.save(hosted('gone', false, 1_000), { members: { bob: { s: 2, t: 0 } }, gone: {} });
    w.live.save(hosted('migrating', true, 60_000), alice);

    const result = await w.sweep();

    expect(w.hostLost.sort()).toEqual(['gone', 'silent']);
    expect(result.closed.sort((a, b) => a.roomId.localeCompare(b.roomId))).toEqual([
      { roomId: 'gone', reason: 'host-lost' },
      { roomId: 'silent', reason: 'host-lost' },
    ]);
    expect(result.live.sort()).toEqual(['heard', 'migrating']);
  });

  it('ends a session empty past its sessionEmptyMs and stops its server, though nobody writes to it again', async () => {
    const w = world();
    const constants = (sessionEmptyMs: number | null) => ({
      maxMembers: 8,
      visibility: 'open' as const,
      timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs },
      custom: {},
    });
    const emptied = { state: 'ready' as const, lastHeartbeatAt: secondsAgo(1), emptySince: now.getTime() - 5_000 };
    w.live.save(room({ roomId: 'over', ...emptied, constants: constants(1_000) }));
    w.live.save(room({ roomId: 'kept', ...emptied, constants: constants(null) }));
    w.live.save(room({ roomId: 'in-grace', ...emptied, constants: constants(60_000) }));

    const result = await w.sweep();

    expect(w.ended).toEqual(['over']);
    expect(w.stopped).toEqual(['task-over']);
    expect(result.live.sort()).toEqual(['in-grace', 'kept']);
  });

  it('fails a spawning room past its deadline and grace, and stops its task; spares one within it', async () => {
    const w = world();
    w.live.save(room({ roomId: 'late', state: 'spawning', spawnDeadline: secondsAgo(3) }));
    w.live.save(room({ roomId: 'on-time', state: 'spawning', spawnDeadline: secondsAgo(1) }));

    const result = await w.sweep();

    expect(result.failed).toEqual(['late']);
    expect(w.failed).toEqual([{ roomId: 'late', reason: 'spawn-timeout' }]);
    expect(w.stopped).toEqual(['task-late']);
  });

  it('fails a ready room silent for a whole timeout once the pipeline is current', async () => {
    const w = world();
    w.live.save(room({ roomId: 'silent', lastHeartbeatAt: secondsAgo(11) }));
    w.live.save(room({ roomId: 'beating', lastHeartbeatAt: secondsAgo(2) }));

    const result = await w.sweep();

    expect(result).toMatchObject({ failed: ['silent'], heartbeats: 'judged' });
    expect(w.failed).toEqual([{ roomId: 'silent', reason: 'heartbeat-lost' }]);
  });

  it("hands a silent room to replaceServer instead of failing it: the replaced room stays live, its server is not the sweeper's to stop", async () => {
    const w = world();
    const deaths: { roomId: string; reason: string; epoch?: number; read: boolean }[] = [];
    const sweep = () =>
      w.sweepWith({
        replaceServer: async (roomId, death) => {
          deaths.push({ roomId, reason: death.reason, epoch: death.epoch, read: death.read?.room.roomId === roomId });
          return roomId === 'kept' ? { kind: 'replaced', epoch: 3, room: aRoom({ roomId }) } : { kind: 'failed' };
        },
      });
    // `kept` already runs its second server: the silence is that server's, epoch 2.
    w.live.save(room({ roomId: 'kept', lastHeartbeatAt: secondsAgo(11), host: { epoch: 2, seenAt: 0 } }));
    w.live.save(room({ roomId: 'lost', lastHeartbeatAt: secondsAgo(11) }));

    const result = await sweep();

    expect(deaths).toEqual([
      { roomId: 'kept', reason: 'heartbeat-lost', epoch: 2, read: true },
      { roomId: 'lost', reason: 'heartbeat-lost', epoch: 1, read: true },
    ]);
    expect(result).toMatchObject({ failed: ['lost'], live: ['kept'] });
    expect(w.stopped).toEqual(['task-lost']);
  });

  it("tells the orphan pass the epoch of each live room's replacement server, and of no other room", async () => {
    const w = world();
    const beating = { lastHeartbeatAt: secondsAgo(1) };
    w.live.save(room({ roomId: 'replaced', ...beating, host: { epoch: 3, seenAt: now.getTime() } }));
    w.live.save(room({ roomId: 'first', ...beating, host: { epoch: 1, seenAt: now.getTime() } }));
    // A member arbiter's epoch says nothing of the server, which still reads its first queue.
    w.live.save(
      room({ roomId: 'member-host', ...beating, host: { epoch: 4, account: 'alice', seenAt: now.getTime() } }),
      { members: { alice: { s: 2, t: now.getTime() } }, gone: {} },
    );
    w.live.save(
      room({ roomId: 'ended', state: 'spawning', spawnDeadline: secondsAgo(600), host: { epoch: 2, seenAt: 0 } }),
    );

    const result = await w.sweep();

    expect(result.live.sort()).toEqual(['first', 'member-host', 'replaced']);
    expect(result.serverEpochs).toEqual({ replaced: 3 });
  });

  it('judges no silence while heartbeats wait in the queue', async () => {
    const w = world({ backlog: 50 });
    w.live.save(room({ roomId: 'silent', lastHeartbeatAt: secondsAgo(60) }));

    const result = await w.sweep();

    expect(result).toMatchObject({ failed: [], heartbeats: 'backlog' });
  });

  it('frees expired slots from the document the index read handed it, in rooms with members only', async () => {
    const w = world();
    const doc = { members: { bob: { s: 0, t: 0, e: 1 } }, gone: {} };
    w.live.save(room({ roomId: 'with-members', players: 1, lastHeartbeatAt: secondsAgo(1) }), doc);
    w.live.save(room({ roomId: 'empty', players: 0, lastHeartbeatAt: secondsAgo(1) }));

    const result = await w.sweep();

    expect(result.freedSlots).toBe(1);
    expect(w.reclaimed).toEqual([
      { roomId: 'with-members', read: { room: expect.objectContaining({ roomId: 'with-members' }), doc } },
    ]);
  });

  it('never sees a room once it ended: the index no longer holds it', async () => {
    const w = world();
    w.live.save(room({ roomId: 'ended', state: 'spawning', spawnDeadline: secondsAgo(600), players: 3 }));
    w.live.end('ended');

    const result = await w.sweep();

    expect(result).toMatchObject({ failed: [], freedSlots: 0 });
    expect(w.stopped).toEqual([]);
  });

  describe('cost bounds', () => {
    const defaults = { emptyGraceS: 60, maxLifetimeS: 3600 };

    it('closes a ready room empty past its grace and one past its lifetime, stops their tasks and frees their server slots', async () => {
      const released: string[] = [];
      const w = world({ costs: { defaults, slots: { release: async (id) => (released.push(id), true) } } });
      const heard = { lastHeartbeatAt: secondsAgo(1) };
      // Ready 61 s ago and nobody ever came: empty since it became ready.
      w.live.save(room({ roomId: 'empty', readyAt: secondsAgo(61), createdAt: secondsAgo(70), ...heard }));
      // Full of players, but created an hour and a second ago.
      w.live.save(
        room({ roomId: 'old', readyAt: secondsAgo(3590), createdAt: secondsAgo(3601), players: 1, ...heard }),
        { members: { bob: { s: 1, t: now.getTime() - 5000 } }, gone: {} },
      );
      // Empty only 59 s: within the grace.
      w.live.save(room({ roomId: 'recent', readyAt: secondsAgo(59), createdAt: secondsAgo(65), ...heard }));

      const result = await w.sweep();

      expect(result.closed).toEqual([
        { roomId: 'empty', reason: 'empty' },
        { roomId: 'old', reason: 'lifetime' },
      ]);
      expect(result.failed).toEqual([]);
      expect(w.closed).toEqual(['empty', 'old']);
      expect(w.stopped).toEqual(['task-empty', 'task-old']);
      expect(released).toEqual(['empty', 'old']);
      expect(result.live).toEqual(['recent']);
    });

    it('keeps a room whose bounds are its own (configuration overrides) and ends nothing without cost bounds', async () => {
      const w = world({ costs: { defaults } });
      w.live.save(
        room({
          roomId: 'patient',
          readyAt: secondsAgo(120),
          lastHeartbeatAt: secondsAgo(1),
          bounds: { emptyGraceS: 300, maxLifetimeS: 7200 },
        }),
      );
      expect((await w.sweep()).closed).toEqual([]);

      const off = world();
      off.live.save(room({ roomId: 'idle', readyAt: secondsAgo(600), lastHeartbeatAt: secondsAgo(1) }));
      expect((await off.sweep()).closed).toEqual([]);
      expect(off.stopped).toEqual([]);
    });

    it('does not close an empty room a join changed after the sweep read it', async () => {
      const w = world({ costs: { defaults } });
      const read = room({ roomId: 'joined', readyAt: secondsAgo(90), lastHeartbeatAt: secondsAgo(1) });
      w.live.save(read);
      const liveRooms = w.live.liveRooms.bind(w.live);
      // The sweep reads the room empty; a join lands before its close.
      w.live.liveRooms = async () => {
        const seen = await liveRooms();
        w.live.save({ ...read, changeNumber: read.changeNumber + 1, players: 1 });
        return seen;
      };

      const result = await w.sweep();

      expect(result.closed).toEqual([]);
      expect(w.stopped).toEqual([]);
      expect(result.live).toEqual(['joined']);
    });
  });
});
