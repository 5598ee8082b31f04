import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsAssignAnswers } from '../../../core/pool/assign';
import { PoolStore, type HandOver, type PoolKey } from '../../../core/pool/pool-store';
import { assignQueueName } from '../../../core/protocol/queue-names';
import { sealRequest } from '../../../core/protocol/sidecar-channel';
import { RoomStore } from '../../../core/rooms/store';
import { defaultConstants } from '../../../core/sessions/model';
import { platform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The warm pool's hand-over on the real emulators: taking a standby server is one conditional
 * write on its room (hundreds of creators racing for a few servers get exactly one each), and
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
  rooms = new RoomStore(test.db, test.tableName);
});
afterAll(async () => {
  sqs.destroy();
  await test.close();
});

const shape = { maxPlayers: 8, reservationTimeoutS: 30 };

function handOver(account: string): HandOver {
  const createdAt = new Date().toISOString();
  return {
    owner: account,
    settings: { map: account },
    maxPlayers: 8,
    createdAt,
    template: null,
    constants: defaultConstants(shape),
    properties: { joinability: 'open', custom: {} },
    members: { [account]: { s: 0, t: Date.parse(createdAt), e: Date.parse(createdAt) + 30_000, k: 'key' } },
  };
}

async function standbyServer(key: PoolKey, state: 'ready' | 'spawning' = 'ready'): Promise<string> {
  const room = aRoom({
    ...key,
    state,
    owner: '@standby',
    standby: true,
    settings: {},
    constants: { ...defaultConstants(shape), visibility: 'private' },
    properties: { joinability: 'closed', custom: {} },
  });
  await rooms.createWithMember(room);
  await pool.addStarting(key, room.roomId, new Date());
  if (state === 'ready') await pool.markReady(key, room.roomId);
  return room.roomId;
}

describe('PoolStore.take', () => {
  it('gives each of 3 ready servers to exactly one of 200 racing creators, and the rest nothing', async () => {
    const key = { gameId: `race-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = [await standbyServer(key), await standbyServer(key), await standbyServer(key)];
    const creators = Array.from({ length: 200 }, (_, i) => `player-${i}`);

    const taken = await Promise.all(
      creators.map(async (account, i) => ({
        account,
        session: await pool.take(key, servers[i % servers.length] ?? '', handOver(account)),
      })),
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

  it('takes no server that is still starting, and lists a taken one under its configuration', async () => {
    const key = { gameId: `start-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const starting = await standbyServer(key, 'spawning');
    const ready = await standbyServer(key);
    expect(await pool.take(key, starting, handOver('early'))).toBeUndefined();
    expect(
      (await pool.serversByRegion(key.gameId, key.version)).map((s) => [s.roomId, s.region, s.state]).sort(),
    ).toEqual(
      [
        [starting, key.region, 'starting'],
        [ready, key.region, 'ready'],
      ].sort(),
    );
    // Another region's pool of the same configuration is not this one.
    expect(await pool.servers({ ...key, region: 'eu-west-1' })).toEqual([]);

    const session = await pool.take(key, ready, handOver('first'));
    expect(session?.room.owner).toBe('first');
    const listed = await platform().roomListing.listOpen(
      { gameId: key.gameId, version: key.version, region: key.region },
      undefined,
      10,
    );
    expect(listed.rooms.map((r) => r.roomId)).toEqual([ready]);
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
      const waiting = answers()(roomId, 'assign-1', 5_000, new AbortController().signal);
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
      expect(await answers()(roomId, 'assign-2', 5_000, new AbortController().signal)).toEqual({
        kind: 'failed',
        error: { code: -32003, message: 'refused' },
      });
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
  }, 30_000);

  it('gives up at its deadline or when aborted, and says gone when the room has no assign queue', async () => {
    const roomId = randomUUID();
    const queueUrl = await assignQueue(roomId);
    try {
      expect(await answers()(roomId, 'never', 1_000, new AbortController().signal)).toEqual({ kind: 'timeout' });
      const stop = new AbortController();
      const waiting = answers()(roomId, 'never', 20_000, stop.signal);
      stop.abort();
      expect(await waiting).toEqual({ kind: 'timeout' });
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    }
    expect(await answers()(randomUUID(), 'x', 1_000, new AbortController().signal)).toEqual({ kind: 'gone' });
  }, 30_000);
});
