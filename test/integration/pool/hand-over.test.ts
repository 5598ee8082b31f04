import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsAssignAnswers } from '../../../core/pool/assign';
import { PoolStore, type HandOver, type PoolKey } from '../../../core/pool/pool-store';
import { KnownReadyServers } from '../../../core/pool/ready-servers';
import { WarmPool, type WarmPoolDependencies } from '../../../core/pool/warm-pool';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { assignQueueName } from '../../../core/protocol/queue-names';
import { sealRequest } from '../../../core/protocol/sidecar-channel';
import { RoomStore } from '../../../core/rooms/store';
import { defaultConstants } from '../../../core/sessions/model';
import { platform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The warm pool's hand-over on the real emulators: a standby server's room changes hands in one
 * conditional write (hundreds of creators racing for a few servers get exactly one each, and
 * two processes that try one server resolve it), and
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

describe('PoolStore.readyServers and handOver', () => {
  it('gives each of 3 ready servers to exactly one of 200 racing creators, and the rest nothing', async () => {
    const key = { gameId: `race-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = [await standbyServer(key), await standbyServer(key), await standbyServer(key)];
    const creators = Array.from({ length: 200 }, (_, i) => `player-${i}`);

    // Each creator reads the ready list and tries one of the three: the room's write decides.
    const taken = await Promise.all(
      creators.map(async (account, i) => {
        const listed = await pool.readyServers(key);
        const roomId = listed[i % listed.length] ?? '';
        return { account, session: await pool.handOver(key, roomId, handOver(account)) };
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
      Array.from({ length: 200 }, (_, i) => pool.handOver(key, server, handOver(`player-${i}`))),
    );
    expect(sessions.filter(Boolean)).toHaveLength(1);

    const ended = await standbyServer(key);
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    expect(await pool.handOver(key, ended, handOver('late'))).toBeUndefined();
    expect(await rooms.find(ended)).toMatchObject({ owner: '@standby', state: 'failed' });
  });

  it('lists no server that is still starting, lists each ready one once, and keeps regions apart', async () => {
    const key = { gameId: `start-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const starting = await standbyServer(key, 'spawning');
    expect(await pool.readyServers(key)).toEqual([]);
    // Not ready: its room's write refuses it too.
    expect(await pool.handOver(key, starting, handOver('early'))).toBeUndefined();
    const ready = await standbyServer(key);
    // A retried inited marks it ready again: still one place in the list.
    await pool.markReady(key, ready);
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([
      [starting, 'starting'],
      [ready, 'ready'],
    ]);
    expect(await pool.readyServers(key)).toEqual([ready]);
    // Another region's pool of the same configuration is not this one.
    expect(await pool.servers({ ...key, region: 'eu-west-1' })).toEqual([]);
    expect(await pool.readyServers({ ...key, region: 'eu-west-1' })).toEqual([]);

    const session = await pool.handOver(key, ready, handOver('first'));
    expect(session?.room.owner).toBe('first');
    const listed = await platform().roomListing.listOpen(
      { gameId: key.gameId, version: key.version, region: key.region },
      undefined,
      10,
    );
    expect(listed.rooms.map((r) => r.roomId)).toEqual([ready]);
  });

  it('removes servers from their entries and from the ready list while others are removed and added', async () => {
    const key = { gameId: `remove-${randomUUID().slice(0, 8)}`, version: '1', region: 'us-east-1' };
    const servers: string[] = [];
    for (let i = 0; i < 6; i++) servers.push(await standbyServer(key));
    const removed = [servers[0] ?? '', servers[3] ?? '', servers[4] ?? ''];
    const [added] = await Promise.all([standbyServer(key), ...removed.map((roomId) => pool.remove(key, roomId))]);

    const kept = [...servers.filter((roomId) => !removed.includes(roomId)), added];
    expect((await pool.servers(key)).map((s) => s.roomId).sort()).toEqual([...kept].sort());
    // The list keeps the order they became ready in, each once.
    const listed = await pool.readyServers(key);
    expect(listed.slice(0, 3)).toEqual(kept.slice(0, 3));
    expect([...listed].sort()).toEqual([...kept].sort());
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
    readyServers: knownReadyServers(() => 0),
    later: (begin) => void begin(),
    ...deps,
  });
}

/** One process's knowledge of its pools, on this file's store; `pick` says which known server it tries. */
function knownReadyServers(pick: (count: number) => number): KnownReadyServers {
  return new KnownReadyServers({
    read: (key) => pool.readyServers(key),
    // No reads ahead: each test says when the list is read.
    later: () => undefined,
    nowMs: () => Date.now(),
    pick,
  });
}

/**
 * The sidecars of a test's standby servers, as far as `assign` goes: each relays the first
 * `assign` it gets to its game (`relayed`: the room's `map` setting, this file's creator
 * account), which accepts after `answerMs`, and answers any later one -32007.
 */
function standbySidecars(answerMs = 50) {
  const relayed = new Map<string, unknown>();
  const calls: { roomId: string; creator: unknown; abandoned: AbortSignal }[] = [];
  const assign =
    (sent: () => Promise<void> = () => Promise.resolve()): WarmPoolDependencies['assign'] =>
    ({ roomId, settings }, abandoned) => {
      calls.push({ roomId, creator: settings.map, abandoned });
      const first = !relayed.has(roomId);
      if (first) relayed.set(roomId, settings.map);
      return {
        sent: sent(),
        outcome: first
          ? new Promise((resolve) => setTimeout(() => resolve({ accepted: true }), answerMs))
          : Promise.resolve({ accepted: false, detail: 'handed its room already (-32007)', assignedAlready: true }),
      };
    };
  return { relayed, calls, assign };
}

describe('WarmPool.take', () => {
  it('abandons the assign of a server whose room ended, and takes another ready one', async () => {
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

    expect(taken?.room).toMatchObject({ roomId: next, owner: 'creator' });
    expect(assigned.map((a) => [a.roomId, a.abandoned.aborted])).toEqual([
      [ended, true],
      [next, false],
    ]);
    // Taken off the ready list (its removal begun at once here); the process tries neither again.
    for (let wait = 0; wait < 40 && (await pool.readyServers(key)).length > 1; wait++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await pool.readyServers(key)).toEqual([ended]);
    expect(await warm.take(configuration, key.region, handOver('another'))).toBeUndefined();
    expect(assigned).toHaveLength(2);
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
    // Long enough for the read and a write that did not wait for the send.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rooms.find(roomId)).toMatchObject({ standby: true, owner: '@standby' });
    send();

    expect((await taking)?.room).toMatchObject({ roomId, owner: 'creator' });
    expect(await rooms.find(roomId)).toMatchObject({ owner: 'creator' });
  });

  it('gives a server two processes try to one of them, and each creator a server with its own settings', async () => {
    const key = { gameId: `two-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const [first, second, third] = [await standbyServer(key), await standbyServer(key), await standbyServer(key)];
    const sidecars = standbySidecars();
    // Process B tries the first server, and its assign reaches that server's sidecar first; A
    // tries it next, and its write wins the room (B's waits for B's send). The game has B's
    // settings, so A ends that server and takes another; B, refused the room, takes another too.
    let sendB!: () => void;
    const bSent = new Promise<void>((resolve) => (sendB = resolve));
    const processA = warmPool({ assign: sidecars.assign(), readyServers: knownReadyServers(() => 0) });
    const bPicks = [0, Infinity];
    const processB = warmPool({
      assign: sidecars.assign(() => bSent),
      readyServers: knownReadyServers((count) => Math.min(bPicks.shift() ?? 0, count - 1)),
    });
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const takingB = processB.take(configuration, key.region, handOver('player-b'));
    while (sidecars.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const takenA = await processA.take(configuration, key.region, handOver('player-a'));
    sendB();
    const takenB = await takingB;

    expect(sidecars.relayed.get(first)).toBe('player-b');
    expect(await rooms.find(first)).toMatchObject({ owner: 'player-a', state: 'failed' });
    expect(takenA?.room).toMatchObject({ roomId: second, owner: 'player-a', settings: { map: 'player-a' } });
    expect(sidecars.relayed.get(second)).toBe('player-a');
    expect(takenB?.room).toMatchObject({ roomId: third, owner: 'player-b', settings: { map: 'player-b' } });
    expect(sidecars.relayed.get(third)).toBe('player-b');
    // B stopped waiting for the first server's answer once its write failed.
    expect(sidecars.calls.find((c) => c.roomId === first && c.creator === 'player-b')?.abandoned.aborted).toBe(true);
  });

  it('never sends two assigns to one server from one process: 50 creators there race for 5 servers', async () => {
    const key = { gameId: `one-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = await Promise.all(Array.from({ length: 5 }, () => standbyServer(key)));
    const sidecars = standbySidecars(20);
    const warm = warmPool({ assign: sidecars.assign(), readyServers: knownReadyServers((count) => count - 1) });
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const taken = await Promise.all(
      Array.from({ length: 50 }, (_, i) => warm.take(configuration, key.region, handOver(`player-${i}`))),
    );

    expect(new Set(taken.filter(Boolean).map((session) => session?.room.roomId))).toEqual(new Set(servers));
    expect(sidecars.calls.map((c) => c.roomId).sort()).toEqual([...servers].sort());
  });

  it("hands 5 servers to 100 creators racing in 4 processes: no game ever has another creator's settings", async () => {
    const key = { gameId: `many-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const servers = await Promise.all(Array.from({ length: 5 }, () => standbyServer(key)));
    const sidecars = standbySidecars(20);
    // The sends settle in a shuffled order, as SQS would: writes and assigns interleave.
    const shuffled = () => new Promise<void>((resolve) => setTimeout(resolve, Math.random() * 10));
    const processes = Array.from({ length: 4 }, () =>
      warmPool({
        assign: sidecars.assign(shuffled),
        readyServers: knownReadyServers((count) => Math.floor(Math.random() * count)),
      }),
    );
    const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;

    const taken = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const account = `player-${i}`;
        return { account, session: await processes[i % 4]?.take(configuration, key.region, handOver(account)) };
      }),
    );

    const winners = taken.filter((t) => t.session !== undefined);
    expect(winners.length).toBeGreaterThan(0);
    for (const { account, session } of winners) {
      // The creator's room, and its game was handed this creator's settings.
      expect(session?.room.owner).toBe(account);
      expect(sidecars.relayed.get(session?.room.roomId ?? '')).toBe(account);
    }
    expect(new Set(winners.map((w) => w.session?.room.roomId)).size).toBe(winners.length);
    // Every server is one creator's, or ended because its game has settings nobody owns.
    for (const roomId of servers) {
      const room = await rooms.find(roomId);
      const winner = winners.find((w) => w.session?.room.roomId === roomId);
      if (winner) expect(room).toMatchObject({ owner: winner.account, state: 'ready' });
      else expect(room?.state).toBe('failed');
    }
  });
});

describe('WarmPool.refill', () => {
  it('drops a handed-over server and one whose room ended, and keeps the ready one', async () => {
    const key = { gameId: `drop-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' };
    const handed = await standbyServer(key);
    const ended = await standbyServer(key);
    const ready = await standbyServer(key);
    await pool.handOver(key, handed, handOver('creator'));
    await rooms.markFailed(ended, 'spawn-timeout', new Date());
    const warm = warmPool({
      assign: () => {
        throw new Error('a refill assigns nothing');
      },
    });
    const configuration = { gameId: key.gameId, version: key.version, standby: 1 } as GameServerConfiguration;

    expect(await warm.refill(configuration, key.region)).toBe(0);
    expect((await pool.servers(key)).map((s) => [s.roomId, s.state])).toEqual([[ready, 'ready']]);
    expect(await pool.readyServers(key)).toEqual([ready]);
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
      if (roomId === older && ++olderReads === 2) await pool.handOver(key, older, handOver('late-creator'));
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
