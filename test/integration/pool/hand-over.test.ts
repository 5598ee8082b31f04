import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsAssignAnswers } from '../../../core/pool/assign';
import { PoolStore, type PoolKey } from '../../../core/pool/pool-store';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { WarmPool, type WarmPoolDependencies } from '../../../core/pool/warm-pool';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { assignQueueName } from '../../../core/protocol/queue-names';
import { sealRequest } from '../../../core/protocol/sidecar-channel';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform } from '../../../lambdas/dependencies';
import { aHandOver, aStandbyRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The warm pool's hand-over on the real emulators: a standby server's room changes hands in one
 * conditional write (hundreds of creators racing for a few servers get exactly one each), only
 * its winner tells the game (test/integration/pool/collisions.test.ts races four processes), and
 * the game's answer to `assign` comes back on the server's assign queue, trusted only when it
 * is MAC'd for that room and answers that command.
 */
let test: TestPlatform;
let pool: PoolStore;
let rooms: RoomStore;
const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });

beforeAll(async () => {
  test = await startTestPlatform();
  pool = new PoolStore(test.db, test.tableName);
  rooms = dynamoRoomStore(test.db, test.tableName);
});
afterAll(async () => {
  sqs.destroy();
  await test.close();
});

async function standbyServer(key: PoolKey, state: 'ready' | 'spawning' = 'ready'): Promise<string> {
  const room = aStandbyRoom(key, { state });
  await rooms.createWithMember(room);
  await pool.addStarting(key, room.roomId, new Date());
  if (state === 'ready') await pool.markReady(key, room.roomId);
  return room.roomId;
}

describe('PoolStore.readyServers and RoomStore.handOver', () => {
  it('gives each of 3 ready servers to exactly one of 200 racing creators, and the rest nothing', async () => {
    const key = { gameId: `race-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = [await standbyServer(key), await standbyServer(key), await standbyServer(key)];
    const creators = Array.from({ length: 200 }, (_, i) => `player-${i}`);

    // Each creator reads the ready list and tries one of the three: the room's write decides.
    const taken = await Promise.all(
      creators.map(async (account, i) => {
        const listed = await pool.readyServers(key.gameId, key.version);
        const roomId = listed[i % listed.length]?.roomId ?? '';
        return { account, session: await rooms.handOver(roomId, key, aHandOver(account)) };
      }),
    );

    const winners = taken.filter((t) => t.session !== undefined);
    expect(winners).toHaveLength(3);
    expect(new Set(winners.map((w) => w.session?.room.roomId))).toEqual(new Set(servers));
    for (const { account, session } of winners) {
      // The write's answer is the creator's room with only the creator in it, and so is the table.
      expect(session?.room).toMatchObject({ owner: account, settings: { map: account }, players: 1, changeNumber: 2 });
      expect(session?.room.standby).toBeUndefined();
      expect(Object.keys(session?.doc.members ?? {})).toEqual([account]);
      expect(await rooms.find(session?.room.roomId ?? '')).toMatchObject({ owner: account, players: 1 });
    }
  });

  it('hands one room to exactly one of 200 racing creators, and none a room that ended', async () => {
    const key = { gameId: `hand-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const server = await standbyServer(key);
    const sessions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => rooms.handOver(server, key, aHandOver(`player-${i}`))),
    );
    expect(sessions.filter(Boolean)).toHaveLength(1);

    const ended = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    expect(await rooms.handOver(ended, key, aHandOver('late'))).toBeUndefined();
    expect(await rooms.find(ended)).toMatchObject({ owner: '@standby', state: 'failed' });
  });

  it('lists each ready server with its region, none still starting, and none once taken or ended', async () => {
    const key = { gameId: `start-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const listed = () => pool.readyServers(key.gameId, key.version);
    const starting = await standbyServer(key, 'spawning');
    expect(await listed()).toEqual([]);
    // Not ready: its room's write refuses it too.
    expect(await rooms.handOver(starting, key, aHandOver('early'))).toBeUndefined();
    const ready = await standbyServer(key);
    const elsewhere = await standbyServer({ ...key, region: 'eu-west-1' });
    const ended = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    // A retried inited marks it ready again: its pool entry says so once.
    await pool.markReady(key, ready);
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([
      [starting, 'starting'],
      [ready, 'ready'],
      [ended, 'ready'],
    ]);
    expect((await listed()).sort((a, b) => a.region.localeCompare(b.region))).toEqual([
      { region: 'eu-west-1', roomId: elsewhere },
      { region: key.region, roomId: ready },
    ]);

    const session = await rooms.handOver(ready, key, aHandOver('first'));
    expect(session?.room.owner).toBe('first');
    // The take's own write took it off the list: no create is offered it again.
    expect(await listed()).toEqual([{ region: 'eu-west-1', roomId: elsewhere }]);
    const open = await platform().roomListing.listOpen(
      { gameId: key.gameId, version: key.version, region: key.region },
      undefined,
      10,
    );
    expect(open.rooms.map((r) => r.roomId)).toEqual([ready]);
  });

  it('removes servers from the pool while others are removed and added', async () => {
    const key = { gameId: `remove-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const servers: string[] = [];
    for (let i = 0; i < 6; i++) servers.push(await standbyServer(key));
    const removed = [servers[0] ?? '', servers[3] ?? '', servers[4] ?? ''];
    const [added] = await Promise.all([standbyServer(key), ...removed.map((roomId) => pool.remove(key, roomId))]);

    const kept = [...servers.filter((roomId) => !removed.includes(roomId)), added];
    expect((await pool.servers(key)).map((s) => s.roomId).sort()).toEqual([...kept].sort());
    // Removing one that is not listed changes nothing.
    await pool.remove(key, servers[0] ?? '');
    expect((await pool.servers(key)).map((s) => s.roomId).sort()).toEqual([...kept].sort());
  });
});

/** A warm pool on this file's stores, with a cache of its own (a process); `assign` is the test's. */
function warmPool(deps: Pick<WarmPoolDependencies, 'assign'> & Partial<WarmPoolDependencies>): WarmPool {
  const p = platform();
  return new WarmPool({
    pool,
    rooms,
    placement: p.placement,
    spawner: p.spawner,
    costs: p.costs,
    now: p.now,
    newRoomId: p.newId,
    mintServerToken: () => Promise.resolve('token'),
    cache: new PlatformCache(),
    // The first listed server, as the pool item has them: each test that cares says which.
    pick: (listed) => listed[0],
    ...deps,
  });
}

/** Games that accept every room, each `assign` recorded with the room's owner as the table has it then. */
function acceptingGames() {
  const handed: { roomId: string; creator: unknown; ownerThen?: string }[] = [];
  const assign: WarmPoolDependencies['assign'] = async ({ roomId, settings }) => {
    handed.push({ roomId, creator: settings.map, ownerThen: (await rooms.find(roomId))?.owner });
    return { accepted: true };
  };
  return { handed, assign };
}

class RecordingSpawner implements Spawner {
  readonly stopped: string[] = [];
  spawn(request: SpawnRequest): Promise<never> {
    return Promise.reject(new Error(`no start here (${request.roomId})`));
  }
  async stop(taskId: string) {
    this.stopped.push(taskId);
  }
}

describe('WarmPool.takeStandby', () => {
  it("sends assign only once its take made the room the creator's, which unlisted it", async () => {
    const key = { gameId: `sent-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const roomId = await standbyServer(key);
    const games = acceptingGames();
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const taken = await warmPool({ assign: games.assign }).takeStandby(configuration, key.region, aHandOver('creator'));

    expect(taken?.room).toMatchObject({ roomId, owner: 'creator', settings: { map: 'creator' } });
    expect(games.handed).toEqual([{ roomId, creator: 'creator', ownerThen: 'creator' }]);
    expect(await pool.readyServers(key.gameId, key.version)).toEqual([]);
  });

  it('tells a server it lost the take for nothing, and takes the next listed one', async () => {
    const key = { gameId: `lost-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const [first, second] = [await standbyServer(key), await standbyServer(key)];
    const ended = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    const games = acceptingGames();
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;
    // Process B read the list before process A took the first server.
    const inOrder = (listed: readonly string[]) => [first, second, ended].find((id) => listed.includes(id));
    const processA = warmPool({ assign: games.assign, pick: inOrder });
    const processB = warmPool({ assign: games.assign, pick: inOrder });
    await processB.listedReady(key);
    const takenA = await processA.takeStandby(configuration, key.region, aHandOver('player-a'));
    const takenB = await processB.takeStandby(configuration, key.region, aHandOver('player-b'));

    expect(takenA?.room).toMatchObject({ roomId: first, owner: 'player-a' });
    expect(takenB?.room).toMatchObject({ roomId: second, owner: 'player-b' });
    expect(games.handed.map((h) => [h.roomId, h.creator])).toEqual([
      [first, 'player-a'],
      [second, 'player-b'],
    ]);
    // B now knows both are gone, and the ended one that is still listed is tried once and skipped.
    expect(await processB.takeStandby(configuration, key.region, aHandOver('player-c'))).toBeUndefined();
    expect(games.handed).toHaveLength(2);
    expect(await rooms.find(ended)).toMatchObject({ owner: '@standby', state: 'failed' });
  });

  it('ends a server whose game refuses its room: failed and stopped; the create gets none', async () => {
    const key = { gameId: `refused-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const roomId = await standbyServer(key);
    const spawner = new RecordingSpawner();
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;
    const warm = warmPool({
      spawner,
      assign: () => Promise.resolve({ accepted: false, detail: 'the game answered {"status":"BUSY"}' }),
    });

    expect(await warm.takeStandby(configuration, key.region, aHandOver('creator'))).toBeUndefined();

    expect(await rooms.find(roomId)).toMatchObject({ state: 'failed', failureReason: 'assign-refused' });
    expect(spawner.stopped).toHaveLength(1);
    expect(await pool.readyServers(key.gameId, key.version)).toEqual([]);
  });
});

describe('WarmPool.refill', () => {
  it('drops a handed-over server and one whose room ended, and keeps the ready one', async () => {
    const key = { gameId: `drop-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const handed = await standbyServer(key);
    const ended = await standbyServer(key);
    const ready = await standbyServer(key);
    await rooms.handOver(handed, key, aHandOver('creator'));
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    const warm = warmPool({
      assign: () => {
        throw new Error('a refill assigns nothing');
      },
    });
    const configuration = { gameId: key.gameId, version: key.version, standby: 1 } as GameServerConfiguration;

    expect(await warm.refill(configuration, key.region)).toBe(0);
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([[ready, 'ready']]);
    expect(await pool.readyServers(key.gameId, key.version)).toEqual([{ region: key.region, roomId: ready }]);
    expect(await rooms.find(handed)).toMatchObject({ owner: 'creator', state: 'ready' });
  });
});

describe('WarmPool.refill, lowered', () => {
  it('retires a ready server beyond the number, but not one a create won after the keeper read it', async () => {
    const key = { gameId: `shrink-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const [older, newer] = [await standbyServer(key), await standbyServer(key)];
    // A create that knew `older` from before its removal wins it between the keeper's read of
    // its room and the keeper's close.
    // (The keeper reads each room twice: whether it is still standby, then before retiring it.)
    let olderReads = 0;
    const racedRooms = Object.create(rooms) as RoomStore;
    racedRooms.find = async (roomId: string) => {
      const room = await rooms.find(roomId);
      if (roomId === older && ++olderReads === 2) await rooms.handOver(older, key, aHandOver('late-creator'));
      return room;
    };
    const warm = warmPool({
      rooms: racedRooms,
      assign: () => {
        throw new Error('a refill assigns nothing');
      },
    });
    const configuration = { gameId: key.gameId, version: key.version, standby: 0 } as GameServerConfiguration;

    await warm.refill(configuration, key.region);

    expect(await rooms.find(older)).toMatchObject({ owner: 'late-creator', state: 'ready' });
    expect(await rooms.find(newer)).toMatchObject({ standby: true, state: 'closed' });
    expect(await pool.servers(key)).toEqual([]);
  });
});

describe('sqsAssignAnswers', () => {
  const prefix = `rk-test-${randomUUID().slice(0, 8)}-reply-`;
  const answers = () =>
    sqsAssignAnswers(sqs, prefix, (roomId) => platform().sidecarKeys(roomId), queueUrlResolver(sqs));

  async function assignQueue(roomId: string): Promise<string> {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: assignQueueName(prefix, roomId) }));
    return QueueUrl ?? '';
  }

  async function answer(queueUrl: string, roomId: string, sealedFor: string, body: Record<string, unknown>) {
    const payload = JSON.stringify({ roomId, sentAt: new Date().toISOString(), type: 'commandResult', ...body });
    const keys = await platform().sidecarKeys(sealedFor);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(sealRequest(keys, payload)) }),
    );
  }

  it("returns the room's sealed answer to this command, past forged, foreign and other commands' answers", async () => {
    const roomId = randomUUID();
    const queueUrl = await assignQueue(roomId);
    try {
      const waiting = answers()(roomId, 'assign-1', 5_000);
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"v":1,"roomId":"x","payload":"{}","mac":"AA"}' }),
      );
      // Sealed by another room's sidecar, for this room and for itself.
      await answer(queueUrl, roomId, randomUUID(), { commandId: 'assign-1', result: { status: 'OK' } });
      await answer(queueUrl, roomId, roomId, { commandId: 'assign-0', result: { status: 'OK' } });
      await answer(queueUrl, roomId, roomId, { commandId: 'assign-1', result: { status: 'BUSY' } });
      expect(await waiting).toEqual({ kind: 'answered', result: { status: 'BUSY' } });

      await answer(queueUrl, roomId, roomId, {
        commandId: 'assign-2',
        error: { code: -32003, message: 'refused' },
      });
      expect(await answers()(roomId, 'assign-2', 5_000)).toEqual({
        kind: 'failed',
        error: { code: -32003, message: 'refused' },
      });
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
  }, 30_000);

  it('gives up at its deadline, and says gone when the room has no assign queue', async () => {
    const roomId = randomUUID();
    const queueUrl = await assignQueue(roomId);
    try {
      expect(await answers()(roomId, 'never', 1_000)).toEqual({ kind: 'timeout' });
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
    expect(await answers()(randomUUID(), 'x', 1_000)).toEqual({ kind: 'gone' });
  }, 30_000);
});
