import { NoHealthyHostError, SpawnFailedError } from '../../../core/gameservers/errors';
import { ServerSlotStore } from '../../../core/gameservers/server-slot-store';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { createRoom, type CreateRoomDependencies } from '../../../core/rooms/create';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { aConfiguration } from '../../helpers/session-factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The create use case with the running-server caps on DynamoDB Local: a create over a cap
 * writes nothing and starts nothing; a spawn that fails gives its slot back; a room carries
 * the cost bounds of its configuration.
 */
let platform: TestPlatform;
let rooms: RoomStore;
let slots: ServerSlotStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  slots = new ServerSlotStore(platform.db, platform.tableName);
});
afterAll(() => platform.close());

class RecordingSpawner implements Spawner {
  readonly spawned: string[] = [];
  readonly requests: SpawnRequest[] = [];
  constructor(private readonly refuse = false) {}
  async spawn(request: SpawnRequest) {
    if (this.refuse) throw new SpawnFailedError('refused');
    this.spawned.push(request.roomId);
    this.requests.push(request);
    return { taskId: `t:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

const defaults = {
  emptyRoomGraceS: 60,
  maxLifetimeS: 21_600,
  maxRunningServers: 1000,
  maxServersPerConfiguration: 1000,
  orphanGraceS: 300,
};
let next = 0;
function deps(spawner: Spawner, gameId: string, overrides: Record<string, number> = {}): CreateRoomDependencies {
  return {
    rooms,
    spawner,
    configuration: aConfiguration({ gameId, version: '1', ...overrides }),
    now: () => new Date(),
    newRoomId: () => `${gameId}-${++next}`,
    mintServerToken: async () => 'server-token',
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // Answer at once: the server never calls inited here.
    answerBy: new Date(Date.now() + 50),
    costs: { slots, defaults },
  };
}
const command = (gameId: string) => ({
  account: 'alice',
  scopes: [],
  gameId,
  version: '1',
  settings: {},
  region: 'local',
});

describe('createRoom with running-server caps', () => {
  it("refuses a create over the configuration's maxServers with NO_HEALTHY_HOST, writing and starting nothing", async () => {
    const spawner = new RecordingSpawner();
    const first = await createRoom(command('one'), deps(spawner, 'one', { maxServers: 1 }));
    expect(first.state).toBe('Spawning');

    const refused = createRoom(command('one'), deps(spawner, 'one', { maxServers: 1 }));
    await expect(refused).rejects.toBeInstanceOf(NoHealthyHostError);
    await expect(refused).rejects.toMatchObject({ code: 'NO_HEALTHY_HOST', status: 503 });
    expect(spawner.spawned).toEqual([first.room.roomId]);
    expect(await rooms.find(`one-${next}`)).toBeUndefined();
    expect(await slots.running('one', '1')).toBe(1);
  });

  it('gives the slot back when the spawner refuses', async () => {
    await expect(createRoom(command('refused'), deps(new RecordingSpawner(true), 'refused'))).rejects.toBeInstanceOf(
      SpawnFailedError,
    );
    expect(await slots.running('refused', '1')).toBe(0);
    expect((await slots.leases()).map((l) => l.roomId)).not.toContain(`refused-${next}`);
  });

  it("stores the configuration's cost bounds on the room, else the deployment's, and hands them to its sidecar", async () => {
    const spawner = new RecordingSpawner();
    const own = await createRoom(
      command('bounded'),
      deps(spawner, 'bounded', { emptyRoomGraceS: 15, maxLifetimeS: 600, reservationTimeoutS: 45 }),
    );
    expect((await rooms.get(own.room.roomId)).bounds).toEqual({ emptyGraceS: 15, maxLifetimeS: 600 });
    // The sidecar enforces them itself, should the sweeper not run (docs/cost-bounds.md); with
    // the default template a member may wait `ready` for ever, so it gets no member hold.
    expect(spawner.requests[0]?.bounds).toEqual({ emptyGraceS: 15, maxLifetimeS: 600 });
    const plain = await createRoom(command('plain'), deps(new RecordingSpawner(), 'plain'));
    expect((await rooms.get(plain.room.roomId)).bounds).toEqual({ emptyGraceS: 60, maxLifetimeS: 21_600 });
  });

  it("leaves the slot of a room another creator made under the same id (matchmaking's race) in place", async () => {
    const sameId = (): CreateRoomDependencies => ({
      ...deps(new RecordingSpawner(), 'raced'),
      newRoomId: () => 'raced-room',
    });
    await createRoom(command('raced'), sameId());
    await expect(createRoom(command('raced'), sameId())).rejects.toMatchObject({ name: 'RoomAlreadyExistsError' });
    expect(await slots.running('raced', '1')).toBe(1);
    expect((await slots.leases()).map((l) => l.roomId)).toContain('raced-room');
  });
});
