import { NoHealthyHostError, SpawnTimeoutError } from '../../../core/gameservers/errors';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { createRoom, type CreateRoomDependencies } from '../../../core/rooms/create';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { joinRoom } from '../../../core/rooms/join';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import { sweepRooms } from '../../../core/rooms/sweep';
import { SweeperStateStore } from '../../../core/rooms/sweeper-state-store';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The create use case and the sweeper against real DynamoDB Local. The spawner here is a
 * recording stand-in for a server that never comes up (ECS has no local engine; the local
 * fleet's real behaviour is covered end to end in test/e2e).
 */
let platform: TestPlatform;
let rooms: RoomStore;
let members: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  members = dynamoRoomStore(platform.db, platform.tableName);
});
afterAll(() => platform.close());

class SilentSpawner implements Spawner {
  readonly spawned: SpawnRequest[] = [];
  readonly stopped: { taskId: string; reason: string }[] = [];
  constructor(private readonly refuse?: Error) {}
  async spawn(request: SpawnRequest) {
    if (this.refuse) throw this.refuse;
    this.spawned.push(request);
    return { taskId: `silent:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop(taskId: string, reason: string) {
    this.stopped.push({ taskId, reason });
  }
}

function deps(spawner: Spawner, spawnTimeoutS: number, waitMs: number): CreateRoomDependencies {
  return {
    rooms,
    spawner,
    configuration: {
      gameId: 'g',
      version: '1',
      updatedAt: new Date().toISOString(),
      binary: '/bin/true',
      args: [],
      env: {},
      ports: 1,
      maxPlayers: 4,
      serverSettings: {},
      spawnTimeoutS,
      reservationTimeoutS: 30,
      commands: [],
      serverScopes: [],
    },
    now: () => new Date(),
    newRoomId: () => `room-${Math.floor(performance.now() * 1000)}`,
    mintServerToken: async () => 'server-token',
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    answerBy: new Date(Date.now() + waitMs),
  };
}

const command = { account: 'alice', scopes: [], gameId: 'g', version: '1', settings: {}, region: 'local' };

describe('createRoom', () => {
  it('answers "still spawning" with the room and the reservation when the wait runs out first (202)', async () => {
    const result = await createRoom(command, deps(new SilentSpawner(), 30, 300));
    expect(result.state).toBe('Spawning');
    expect(result.room).toMatchObject({ state: 'spawning', players: 1 });
    expect(result.reservation.key).toHaveLength(43);
  });

  it("bounds a throttled start (startBy) by the request's queue budget (at least the caller's wait), never past the spawn deadline", async () => {
    const waiting = new SilentSpawner();
    // The caller's wait ends first.
    const shortWait = deps(waiting, 30, 300);
    await createRoom(command, shortWait);
    expect(waiting.spawned[0]!.startBy).toEqual(shortWait.answerBy);
    // The request's queue budget outlasts the caller's wait: a throttled start keeps its place.
    const queued = { ...deps(waiting, 30, 300), spawnQueueBy: new Date(Date.now() + 10_000) };
    await createRoom(command, queued);
    expect(waiting.spawned.at(-1)!.startBy).toEqual(queued.spawnQueueBy);
    // The spawn deadline comes first (the create then fails it: SPAWN_TIMEOUT).
    const roomId = `room-deadline-${Date.now()}`;
    const outcome = createRoom(command, { ...deps(waiting, 1, 20_000), newRoomId: () => roomId });
    await expect(outcome).rejects.toBeInstanceOf(SpawnTimeoutError);
    expect(waiting.spawned.at(-1)!.startBy?.toISOString()).toBe((await rooms.get(roomId)).spawnDeadline);
  });

  it('refuses room settings that would not fit the game server task (400) before writing the room or spawning', async () => {
    const spawner = new SilentSpawner();
    const roomId = `room-too-big-${Date.now()}`;
    const tooBig = { ...command, settings: { s: '"'.repeat(1_400) } };
    await expect(createRoom(tooBig, { ...deps(spawner, 30, 300), newRoomId: () => roomId })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(spawner.spawned).toEqual([]);
    expect(await rooms.find(roomId)).toBeUndefined();
  });

  it('enforces the spawn deadline itself when no sidecar reports it: room failed, task stopped, SPAWN_TIMEOUT', async () => {
    const spawner = new SilentSpawner();
    await expect(createRoom(command, deps(spawner, 1, 20_000))).rejects.toBeInstanceOf(SpawnTimeoutError);
    const roomId = spawner.spawned[0]?.roomId ?? '';
    expect(await rooms.get(roomId)).toMatchObject({ state: 'failed', failureReason: 'spawn-timeout' });
    expect(spawner.stopped).toEqual([{ taskId: `silent:${roomId}`, reason: 'spawn-timeout' }]);
  });

  it('fails the room and answers NO_HEALTHY_HOST when the spawner has no capacity', async () => {
    const error = new NoHealthyHostError('no ports left');
    await expect(createRoom(command, deps(new SilentSpawner(error), 30, 1000))).rejects.toBe(error);
  });
});

/**
 * ECS as the spawner sees it: RunTask answers before the task has a public IP (`pending`);
 * the address arrives with `inited` (here: written as the controller consumer does).
 */
class EcsLikeSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    setTimeout(() => {
      void rooms.markReady(request.roomId, { address: '203.0.113.7', initedBy: 'inited-1', now: new Date() });
    }, 100);
    return { taskId: `arn:aws:ecs:eu-west-1:1:task/c/${request.roomId}`, host: 'pending', ports: [7777, 7778] };
  }
  async stop() {}
}

describe('the address players get (issue 10, point 1)', () => {
  it("a create answered ready (201) and every later join carry the server's address, never `pending`", async () => {
    const created = await createRoom(command, deps(new EcsLikeSpawner(), 120, 5_000));
    expect(created.state).toBe('Ready');
    expect(created.reservation).toMatchObject({ host: '203.0.113.7', ports: [7777, 7778] });
    const joined = await joinRoom(
      { roomId: created.room.roomId, account: 'bob', scopes: [] },
      {
        sessions: members,
        cache: new PlatformCache(),
        now: () => new Date(),
        sleep: async () => undefined,
        answerBy: new Date(),
        heartbeatTimeoutS: 10,
      },
    );
    expect(joined.reservation).toMatchObject({ host: '203.0.113.7', ports: [7777, 7778] });
  });

  it('a create answered while the room still spawns (202) says `pending`, the address is not known yet', async () => {
    const result = await createRoom(command, deps(new EcsLikeSpawner(), 120, 20));
    expect(result.state).toBe('Spawning');
    expect(result.reservation.host).toBe('pending');
  });
});

describe('sweepRooms', () => {
  it('frees the slots of expired reservations in live rooms, and only those', async () => {
    const room = aRoom({
      state: 'ready',
      players: 0,
      maxPlayers: 4,
      reservationTimeoutS: 1,
      lastHeartbeatAt: new Date().toISOString(),
    });
    await rooms.createWithMember(room);
    const join = (account: string) =>
      joinRoom(
        { roomId: room.roomId, account, scopes: [] },
        {
          sessions: members,
          cache: new PlatformCache(),
          now: () => new Date(),
          sleep: async () => undefined,
          answerBy: new Date(),
          heartbeatTimeoutS: 10,
        },
      );
    await join('expires-1');
    await join('expires-2');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await join('fresh');
    const result = await sweepRooms(
      {
        members,
        live: new LiveRoomStore(platform.db, platform.tableName),
        rooms,
        spawner: new SilentSpawner(),
        memory: new SweeperStateStore(platform.db, platform.tableName),
        backlog: async () => 0,
        now: () => new Date(),
      },
      { heartbeatTimeoutS: 60, heartbeatIntervalS: 2, sweepIntervalS: 5, lateToleranceS: 2, spawnGraceS: 2 },
    );
    expect(result.freedSlots).toBeGreaterThanOrEqual(2);
    expect((await rooms.get(room.roomId)).players).toBe(1);
    expect((await members.listMembers(room.roomId)).map((m) => m.account)).toEqual(['fresh']);
  });
});
