import { randomUUID } from 'node:crypto';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { PoolStore } from '../../../core/pool/pool-store';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { WarmPool } from '../../../core/pool/warm-pool';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform } from '../../../lambdas/dependencies';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Issue 27, point 2, with many pool keepers at once (many Lambda instances) on DynamoDB Local:
 * a pool lowered to 0 stays registered until it is empty, a keeper that read the former
 * `standby` cannot leave a server in it, and the deregistration is refused when anything
 * changed since the keeper read it (a PUT, a server added).
 */
let test: TestPlatform;
let pool: PoolStore;
let rooms: RoomStore;

beforeAll(async () => {
  test = await startTestPlatform();
  pool = new PoolStore(test.db, test.tableName);
  rooms = dynamoRoomStore(test.db, test.tableName);
});
afterAll(() => test.close());

class RecordingSpawner implements Spawner {
  readonly spawned: SpawnRequest[] = [];
  async spawn(request: SpawnRequest) {
    this.spawned.push(request);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

function configurationOf(gameId: string, standby: number): GameServerConfiguration {
  return {
    gameId,
    version: '1',
    updatedAt: new Date().toISOString(),
    binary: '/bin/true',
    args: [],
    env: {},
    ports: 1,
    maxPlayers: 4,
    serverSettings: {},
    spawnTimeoutS: 30,
    reservationTimeoutS: 30,
    commands: [],
    serverScopes: [],
    standby,
  };
}

function warmPool(spawner: Spawner, newRoomId: () => string): WarmPool {
  const p = platform();
  return new WarmPool({
    pool,
    rooms,
    placement: p.placement,
    spawner,
    costs: p.costs,
    now: p.now,
    newRoomId,
    mintServerToken: () => Promise.resolve('token'),
    assign: () => {
      throw new Error('no create here');
    },
    cache: new PlatformCache(),
  });
}

const registration = async (gameId: string) => (await pool.registered()).find((c) => c.gameId === gameId);

describe('a pool lowered to 0', () => {
  it('stays registered at 0 until the keeper deregisters it; 0 registers nothing that was never pooled', async () => {
    const gameId = `lowered-${randomUUID().slice(0, 8)}`;
    await pool.register(gameId, '1', 2);
    await pool.register(gameId, '1', 0);
    expect(await registration(gameId)).toMatchObject({ standby: 0 });
    expect(await pool.keeps(gameId, '1')).toBe(false);

    const never = `never-${randomUUID().slice(0, 8)}`;
    expect(await pool.register(never, '1', 0)).toBeUndefined();
    expect(await registration(never)).toBeUndefined();
  });

  it('ends the start of a keeper that read the former standby: nothing spawned, nothing listed, the room failed', async () => {
    const gameId = `stale-${randomUUID().slice(0, 8)}`;
    const key = { gameId, version: '1', region: platform().config.roomRegion };
    await pool.register(gameId, '1', 2);
    const spawner = new RecordingSpawner();
    // This keeper read standby 2; the configuration was lowered to 0 before its start.
    const stale = configurationOf(gameId, 2);
    await pool.register(gameId, '1', 0);

    const roomId = `standby-${randomUUID()}`;

    expect(await warmPool(spawner, () => roomId).startStandby(stale, key.region)).toBeUndefined();

    // It got as far as its room and its listing (placement found a host), then read the 0.
    expect(await rooms.find(roomId)).toMatchObject({ standby: true, state: 'failed' });
    expect(spawner.spawned).toEqual([]);
    expect(await pool.servers(key)).toEqual([]);
  });

  it('is deregistered only while nothing changed since it was read: a PUT since, or a server added since, keeps it', async () => {
    const gameId = `dereg-${randomUUID().slice(0, 8)}`;
    const key = { gameId, version: '1', region: 'eu-west-1' };
    await pool.register(gameId, '1', 1);
    await pool.addStarting(key, `room-${randomUUID()}`, new Date());
    await pool.register(gameId, '1', 0);
    const read = await registration(gameId);
    if (!read) throw new Error('not registered');

    // A server is listed: not empty.
    expect(await pool.deregister(read, [key])).toBe(false);
    const [listed] = await pool.servers(key);
    await pool.remove(key, listed?.roomId ?? '');

    // A PUT came (raised, then lowered again) since the keeper read the registration.
    await pool.register(gameId, '1', 2);
    await pool.register(gameId, '1', 0);
    expect(await pool.deregister(read, [key])).toBe(false);
    expect(await registration(gameId)).toMatchObject({ standby: 0 });

    // Read again, nothing changed since: gone, with its empty pool item.
    const fresh = await registration(gameId);
    if (!fresh) throw new Error('not registered');
    expect(await pool.deregister(fresh, [key])).toBe(true);
    expect(await registration(gameId)).toBeUndefined();
    expect(await pool.pools(gameId, '1')).toEqual([]);
  });
});
