import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsAssignAnswers } from '../../../core/pool/assign';
import { PoolStore, type HandOver, type PoolKey } from '../../../core/pool/pool-store';
import { lostHandOverMs, WarmPool, type WarmPoolDependencies } from '../../../core/pool/warm-pool';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { assignQueueName } from '../../../core/protocol/queue-names';
import { sealRequest } from '../../../core/protocol/sidecar-channel';
import { RoomStore } from '../../../core/rooms/store';
import { defaultConstants } from '../../../core/sessions/model';
import { platform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The warm pool's hand-over on the real emulators: a standby server is popped from its pool's
 * ready list in one conditional write, and its room changes hands in another (hundreds of
 * creators racing for a few servers get exactly one each), and
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

describe('PoolStore.pop and handOver', () => {
  it('gives each of 3 ready servers to exactly one of 200 racing creators, and the rest nothing', async () => {
    const key = { gameId: `race-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = [await standbyServer(key), await standbyServer(key), await standbyServer(key)];
    const creators = Array.from({ length: 200 }, (_, i) => `player-${i}`);

    const taken = await Promise.all(
      creators.map(async (account) => {
        const roomId = await pool.pop(key);
        return { account, session: roomId ? await pool.handOver(key, roomId, handOver(account)) : undefined };
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
    expect((await pool.servers(key)).map((s) => s.state)).toEqual(['handedOut', 'handedOut', 'handedOut']);
  });

  it('hands one room to exactly one of 200 racing creators, and none a room that ended', async () => {
    const key = { gameId: `hand-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const server = await standbyServer(key);
    const sessions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => pool.handOver(key, server, handOver(`player-${i}`))),
    );
    expect(sessions.filter(Boolean)).toHaveLength(1);

    const ended = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    expect(await pool.handOver(key, ended, handOver('late'))).toBeUndefined();
    expect(await rooms.find(ended)).toMatchObject({ owner: '@standby', state: 'failed' });
  });

  it('pops no server that is still starting, lists each ready once, and keeps regions apart', async () => {
    const key = { gameId: `start-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const starting = await standbyServer(key, 'spawning');
    expect(await pool.pop(key)).toBeUndefined();
    const ready = await standbyServer(key);
    // A retried inited marks it ready again: still one place in the list.
    await pool.markReady(key, ready);
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([
      [starting, 'starting'],
      [ready, 'ready'],
    ]);
    // Another region's pool of the same configuration is not this one.
    expect(await pool.servers({ ...key, region: 'eu-west-1' })).toEqual([]);
    expect(await pool.pop({ ...key, region: 'eu-west-1' })).toBeUndefined();

    expect(await pool.pop(key)).toBe(ready);
    expect(await pool.pop(key)).toBeUndefined();
    const session = await pool.handOver(key, ready, handOver('first'));
    expect(session?.room.owner).toBe('first');
    const listed = await platform().roomListing.listOpen(
      { gameId: key.gameId, version: key.version, region: key.region },
      undefined,
      10,
    );
    expect(listed.rooms.map((r) => r.roomId)).toEqual([ready]);
  });

  it('removes a server from its entries and from the ready list while others are popped and added', async () => {
    const key = { gameId: `remove-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const servers: string[] = [];
    // Ready one after the other: the list's order is theirs, and the two pops take the first two.
    for (let i = 0; i < 6; i++) servers.push(await standbyServer(key));
    const [gone, other] = [servers[3] ?? '', servers[4] ?? ''];
    const [popped] = await Promise.all([
      Promise.all([pool.pop(key), pool.pop(key)]),
      pool.remove(key, gone),
      pool.remove(key, other),
      standbyServer(key),
    ]);
    const left = await pool.servers(key);
    expect(left.map((s) => s.roomId)).not.toContain(gone);
    expect(left.map((s) => s.roomId)).not.toContain(other);
    expect(
      left
        .filter((s) => s.state === 'handedOut')
        .map((s) => s.roomId)
        .sort(),
    ).toEqual([...popped].sort());
    expect(left.filter((s) => s.state === 'ready')).toHaveLength(3);
    // Everything still listed can be popped, once each; nothing removed comes back.
    const rest = [await pool.pop(key), await pool.pop(key), await pool.pop(key), await pool.pop(key)];
    expect(rest.slice(0, 3).sort()).toEqual(
      left
        .filter((s) => s.state === 'ready')
        .map((s) => s.roomId)
        .sort(),
    );
    expect(rest[3]).toBeUndefined();
  });
});

/** A warm pool on this file's stores and the test platform's placement; `assign` is the test's. */
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
    ...deps,
  });
}

describe('WarmPool.take', () => {
  it('abandons the assign of a popped server whose room ended, and takes the next ready one', async () => {
    const key = { gameId: `ended-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const ended = await standbyServer(key);
    const next = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    const assigned: { roomId: string; abandoned: AbortSignal }[] = [];
    const warm = warmPool({
      // The game answers once the create stops waiting, or after 50 ms.
      assign: ({ roomId }, abandoned) => {
        assigned.push({ roomId, abandoned });
        return {
          sent: Promise.resolve(),
          outcome: new Promise((resolve) => {
            const answer = () =>
              resolve(abandoned.aborted ? { accepted: false, detail: 'abandoned' } : { accepted: true });
            abandoned.addEventListener('abort', answer, { once: true });
            setTimeout(answer, 50);
          }),
        };
      },
    });
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const taken = await warm.take(configuration, key.region, handOver('creator'));

    expect(taken?.session.room).toMatchObject({ roomId: next, owner: 'creator' });
    expect(taken?.outcome).toEqual({ accepted: true });
    expect(assigned.map((a) => [a.roomId, a.abandoned.aborted])).toEqual([
      [ended, true],
      [next, false],
    ]);
    expect(await warm.take(configuration, key.region, handOver('another'))).toBeUndefined();
  });

  it('writes the hand-over only once the assign is sent, not beside the send the game waits for', async () => {
    const key = { gameId: `sent-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const roomId = await standbyServer(key);
    let send!: () => void;
    const sent = new Promise<void>((resolve) => (send = resolve));
    const warm = warmPool({
      assign: () => ({ sent, outcome: sent.then(() => ({ accepted: true })) }),
    });
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const taking = warm.take(configuration, key.region, handOver('creator'));
    // Long enough for the pop and a write that did not wait for the send.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rooms.find(roomId)).toMatchObject({ standby: true, owner: '@standby' });
    send();

    expect((await taking)?.session.room).toMatchObject({ roomId, owner: 'creator' });
    expect(await rooms.find(roomId)).toMatchObject({ owner: 'creator' });
  });
});

describe('WarmPool.refill', () => {
  it('drops a handed-over server, and retires one popped by a create that never handed it over', async () => {
    const key = { gameId: `lost-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const handed = await standbyServer(key);
    const lost = await standbyServer(key);
    expect(await pool.pop(key)).toBe(handed);
    expect(await pool.pop(key)).toBe(lost);
    await pool.handOver(key, handed, handOver('creator'));
    let nowMs = Date.now();
    const warm = warmPool({
      now: () => new Date(nowMs),
      assign: () => {
        throw new Error('a refill assigns nothing');
      },
    });
    const configuration = { gameId: key.gameId, version: key.version, standby: 0 } as GameServerConfiguration;

    await warm.refill(configuration, key.region);
    // The handed-over one is the creator's now; the other might still be mid hand-over.
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([[lost, 'handedOut']]);
    expect(await rooms.find(lost)).toMatchObject({ standby: true, state: 'ready' });

    nowMs += lostHandOverMs + 1_000;
    await warm.refill(configuration, key.region);
    expect(await pool.servers(key)).toEqual([]);
    expect(await rooms.find(lost)).toMatchObject({ state: 'closed' });
    expect(await rooms.find(handed)).toMatchObject({ owner: 'creator', state: 'ready' });
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
