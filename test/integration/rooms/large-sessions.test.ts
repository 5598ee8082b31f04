import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DependencyUnavailableError } from '../../../core/errors';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { createDocumentClient } from '../../../core/infra/aws-clients';
import { DynamoLargeMemberItems } from '../../../core/rooms/large-member-store';
import { DynamoRoomItems, dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { joinRoom, type JoinRoomDependencies } from '../../../core/rooms/join';
import { PartyMemberRefusedError, RoomFullError } from '../../../core/rooms/join-errors';
import { AccountBannedError } from '../../../core/abuse/errors';
import type { Room } from '../../../core/rooms/model';
import type { RoomStore } from '../../../core/rooms/room-store';
import { Rooms } from '../../../core/rooms/rooms';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import { sweepRooms } from '../../../core/rooms/sweep';
import { SweeperStateStore } from '../../../core/rooms/sweeper-state-store';
import { endedRoomTtlS } from '../../../core/rooms/room-item';
import { createRoom } from '../../../core/rooms/create';
import { ProtocolMismatchError } from '../../../core/versions/errors';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Large sessions on DynamoDB Local: members as their own items, each join one transaction.
 * Exact counts, and write capacity counted from DynamoDB's own answers.
 */
let platform: TestPlatform;
let store: RoomStore;
const units: number[] = [];
let counted: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  store = dynamoRoomStore(platform.db, platform.tableName);
  counted = new Rooms(new DynamoRoomItems(platform.db, platform.tableName), {
    largeMembers: new DynamoLargeMemberItems(platform.db, platform.tableName, (u) => units.push(u)),
  });
});
afterAll(() => platform.close());

const constants = (maxMembers: number, reservedMs: number | null = 60_000) => ({
  maxMembers,
  visibility: 'open' as const,
  timeouts: { reservedMs, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
  custom: {},
  capabilities: ['large' as const],
});

async function largeRoom(
  maxMembers: number,
  reservedMs: number | null = 60_000,
  extra: Partial<Room> = {},
): Promise<Room> {
  const room = aRoom({
    ...extra,
    state: 'ready',
    players: 0,
    maxPlayers: maxMembers,
    hosting: 'peerHosted',
    constants: constants(maxMembers, reservedMs),
    readyAt: new Date().toISOString(),
  });
  await store.createWithMember(room);
  return room;
}

function deps(sessions: RoomStore, extra: Partial<JoinRoomDependencies> = {}): JoinRoomDependencies {
  return {
    sessions,
    cache: new PlatformCache(),
    now: () => new Date(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    answerBy: new Date(Date.now() + 10_000),
    heartbeatTimeoutS: 60,
    ...extra,
  };
}

const join = (sessions: RoomStore, roomId: string, account: string, extra: Partial<JoinRoomDependencies> = {}) =>
  joinRoom({ roomId, account, scopes: [] }, deps(sessions, extra));

async function memberItems(roomId: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await platform.db.send(
      new QueryCommand({
        TableName: platform.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
        ExpressionAttributeValues: { ':pk': `ROOM#${roomId}`, ':m': 'MEMBER#' },
        Select: 'COUNT',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** Accounts of one length, so every member item has the same size. */
const account = (i: number) => `player-${String(i).padStart(5, '0')}`;

async function fill(sessions: RoomStore, roomId: string, from: number, to: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = from; i < to; i += 50) {
    const batch = Array.from({ length: Math.min(50, to - i) }, (_, k) => account(i + k));
    const answers = await Promise.allSettled(batch.map((a) => join(sessions, roomId, a)));
    for (const answer of answers) statuses.push(answer.status === 'fulfilled' ? 200 : 409);
  }
  return statuses;
}

describe('a large session', () => {
  it('takes exactly 1,000 members joining 50 at a time, never more; the 1,001st is ROOM_FULL', async () => {
    const room = await largeRoom(1_000);
    const statuses = await fill(store, room.roomId, 0, 1_000);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1_000);
    await expect(join(store, room.roomId, account(1_000))).rejects.toBeInstanceOf(RoomFullError);
    const read = await store.read(room.roomId);
    expect(read?.room.players).toBe(1_000);
    expect(read?.doc.members).toEqual({});
    expect(await memberItems(room.roomId)).toBe(1_000);
  }, 120_000);

  it('costs the same write capacity per join at 10, 100 and 1,000 members (counted)', async () => {
    const room = await largeRoom(1_001);
    const perJoin: Record<number, number> = {};
    let filled = 0;
    for (const size of [10, 100, 1_000]) {
      await fill(store, room.roomId, filled, size);
      filled = size;
      units.length = 0;
      await join(counted, room.roomId, account(90_000 + size));
      perJoin[size] = units.reduce((a, b) => a + b, 0);
      // The measured join's member leaves again, so the next size starts where it says.
      await store.leaveAsPlayer(room.roomId, account(90_000 + size), new Date());
    }
    process.stdout.write(`WCU per join at 10 / 100 / 1,000 members: ${JSON.stringify(perJoin)}\n`);
    expect(perJoin[10]).toBeGreaterThan(0);
    expect(perJoin[100]).toBe(perJoin[10]);
    expect(perJoin[1_000]).toBe(perJoin[10]);
  }, 120_000);

  it('removes expired reservations in the join that finds the session full', async () => {
    const room = await largeRoom(3, 1);
    await fill(store, room.roomId, 0, 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await join(store, room.roomId, 'late-comer');
    const read = await store.read(room.roomId);
    expect(read?.room.players).toBe(1);
    expect(await memberItems(room.roomId)).toBe(1);
    expect((await store.read(room.roomId, 'late-comer'))?.doc.members['late-comer']).toBeDefined();
  });

  it('leaves through its own member item: the count goes down, the slot is free', async () => {
    const room = await largeRoom(1);
    await join(store, room.roomId, 'alice');
    expect(await store.leaveAsPlayer(room.roomId, 'alice', new Date())).toBe(true);
    expect((await store.read(room.roomId))?.room.players).toBe(0);
    await join(store, room.roomId, 'bob');
    expect(await store.leaveAsPlayer(room.roomId, 'alice', new Date())).toBe(false);
  });
});

describe('a large session’s member items', () => {
  it('answers a member joining its full session again with its slot and a fresh key, never ROOM_FULL', async () => {
    const room = await largeRoom(1);
    const first = await join(store, room.roomId, 'alice');
    const again = await join(store, room.roomId, 'alice');
    expect(again.reservation.key).not.toBe(first.reservation.key);
    expect((await store.read(room.roomId))?.room.players).toBe(1);
  });

  it('carry a ttl: the room’s creation + its lifetime bound + the ended-room retention', async () => {
    const room = await largeRoom(5, 60_000, { bounds: { emptyGraceS: 60, maxLifetimeS: 3_600 } });
    await join(store, room.roomId, 'alice');
    const { Item } = await platform.db.send(
      new GetCommand({ TableName: platform.tableName, Key: { pk: `ROOM#${room.roomId}`, sk: 'MEMBER#alice' } }),
    );
    expect(Item?.ttl).toBe(Math.ceil(Date.parse(room.createdAt) / 1000) + 3_600 + endedRoomTtlS);
  });
});

describe('a large session created for a client its server turns out not to serve', () => {
  it('undoes the creator’s member item with its count: the session stays, empty', async () => {
    const spawner = {
      spawn: async (request: { roomId: string }) => {
        setTimeout(() => {
          void store.markReady(request.roomId, {
            address: '203.0.113.7',
            initedBy: 'inited-1',
            protocol: { h: 'bbbbbbbbbbbbbbbb' },
            now: new Date(),
          });
        }, 50);
        return { taskId: `arn:aws:ecs:eu-west-1:1:task/c/${request.roomId}`, host: 'pending', ports: [7777] };
      },
      stop: async () => {},
    };
    const roomId = `large-${Date.now()}`;
    const error = await createRoom(
      {
        account: 'alice',
        scopes: [],
        gameId: 'g',
        version: '1',
        settings: {},
        region: 'local',
        protocol: { hash: 'aaaaaaaaaaaaaaaa' },
        session: { template: null, constants: constants(10), properties: { joinability: 'open', custom: {} } },
      },
      {
        rooms: store,
        spawner,
        configuration: {
          gameId: 'g',
          version: '1',
          updatedAt: new Date().toISOString(),
          binary: '/bin/true',
          args: [],
          env: {},
          ports: 1,
          maxPlayers: 10,
          serverSettings: {},
          spawnTimeoutS: 30,
          reservationTimeoutS: 30,
          commands: [],
          serverScopes: [],
        },
        now: () => new Date(),
        newRoomId: () => roomId,
        mintServerToken: async () => 'server-token',
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        answerBy: new Date(Date.now() + 5_000),
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolMismatchError);
    expect((await store.read(roomId))?.room.players).toBe(0);
    expect(await memberItems(roomId)).toBe(0);
  });
});

describe('the sweeper and a large session', () => {
  it('removes its expired reservations and counts players down, though nobody joins', async () => {
    const room = await largeRoom(10, 1);
    await fill(store, room.roomId, 0, 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const result = await sweepRooms(
      {
        members: store,
        live: new LiveRoomStore(platform.db, platform.tableName),
        rooms: store,
        spawner: { spawn: () => Promise.reject(new Error('the sweeper never spawns')), stop: async () => {} },
        memory: new SweeperStateStore(platform.db, platform.tableName),
        backlog: async () => 0,
        now: () => new Date(),
      },
      { heartbeatTimeoutS: 60, heartbeatIntervalS: 2, sweepIntervalS: 5, lateToleranceS: 2, spawnGraceS: 2 },
    );
    expect(result.freedSlots).toBeGreaterThanOrEqual(3);
    expect((await store.read(room.roomId))?.room.players).toBe(0);
    expect(await memberItems(room.roomId)).toBe(0);
  });
});

describe('a large session under transaction conflicts (DynamoDB Local never conflicts: injected)', () => {
  const conflict = () =>
    new TransactionCanceledException({
      message:
        'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });

  /** The first `times` transactions `when` picks are cancelled with TransactionConflict. */
  function conflicted(times: number, when: (input: { TransactItems: object[] }) => boolean = () => true) {
    const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT });
    const real = platform.db;
    const mock = mockClient(client);
    // The reads go to DynamoDB Local as they are; only the transactions are scripted.
    mock
      .on(GetCommand)
      .callsFake((input: ConstructorParameters<typeof GetCommand>[0]) => real.send(new GetCommand(input)));
    mock
      .on(QueryCommand)
      .callsFake((input: ConstructorParameters<typeof QueryCommand>[0]) => real.send(new QueryCommand(input)));
    let left = times;
    const sent: unknown[] = [];
    mock.on(TransactWriteCommand).callsFake((input: unknown) => {
      sent.push(input);
      if (left > 0 && when(input as { TransactItems: object[] })) {
        left--;
        return Promise.reject(conflict());
      }
      return real.send(new TransactWriteCommand(input as never));
    });
    return { sessions: dynamoRoomStore(client, platform.tableName), sent, restore: () => mock.restore() };
  }

  it('retries a TransactionConflict with backoff and then joins', async () => {
    const room = await largeRoom(10);
    const { sessions, sent, restore } = conflicted(3);
    const pauses: number[] = [];
    try {
      await join(sessions, room.roomId, 'carol', {
        sleep: async (ms) => {
          pauses.push(ms);
        },
      });
    } finally {
      restore();
    }
    expect(sent).toHaveLength(4);
    expect(pauses).toHaveLength(3);
    const first = sent[0] as { TransactItems: { Update?: { Key: unknown }; Put?: { Item: { sk: string } } }[] };
    expect(first.TransactItems).toHaveLength(2);
    expect(first.TransactItems[0]!.Update?.Key).toEqual({ pk: `ROOM#${room.roomId}`, sk: 'ROOM' });
    expect(first.TransactItems[1]!.Put?.Item.sk).toBe('MEMBER#carol');
    expect((await store.read(room.roomId))?.room.players).toBe(1);
  });

  it('undoes a refused party in one transaction, retried past a conflict: its slots are free again', async () => {
    const room = await largeRoom(10);
    // On AWS, undo transactions of one claim sent at once all update the room's item: all but one conflict.
    const undoing = (input: { TransactItems: object[] }) => input.TransactItems.some((item) => 'Delete' in item);
    const { sessions, sent, restore } = conflicted(1, undoing);
    const refused = new AccountBannedError('bob', undefined);
    const pass = { known: async () => {}, decide: async () => {} };
    try {
      const error = await joinRoom(
        { roomId: room.roomId, account: 'alice', scopes: [], party: [{ account: 'bob', scopes: [] }] },
        deps(sessions, {
          sleep: async () => {},
          partyChecks: (who) =>
            who === 'bob' ? { known: async () => {}, decide: () => Promise.reject(refused) } : pass,
        }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PartyMemberRefusedError);
    } finally {
      restore();
    }
    const undos = (sent as { TransactItems: object[] }[]).filter(undoing);
    expect(undos).toHaveLength(2);
    expect(undos[1]!.TransactItems).toHaveLength(3);
    expect((await store.read(room.roomId))?.room.players).toBe(0);
    expect(await memberItems(room.roomId)).toBe(0);
  });

  it('answers 503 UNAVAILABLE, never ROOM_FULL, when conflicts outlast the join deadline', async () => {
    const room = await largeRoom(10);
    const { sessions, restore } = conflicted(Number.POSITIVE_INFINITY);
    let clock = Date.now();
    try {
      const error = await join(sessions, room.roomId, 'dave', {
        now: () => new Date(clock),
        sleep: async (ms) => {
          clock += ms;
        },
        answerBy: new Date(clock + 1_000),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
    } finally {
      restore();
    }
    expect((await store.read(room.roomId))?.room.players).toBe(0);
  });
});
