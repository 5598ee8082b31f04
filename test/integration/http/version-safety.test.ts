import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { keys } from '../../../core/infra/keys';
import { openReply } from '../../../core/protocol/sidecar-channel';
import { replyQueueName } from '../../../core/protocol/queue-names';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { newReservation } from '../../../core/rooms/document';
import { constantsOf } from '../../../core/rooms/session-model';
import { hash64, setHashOf, storedProtocol, type Protocol } from '../../../core/versions/protocol';
import { ProtocolComponentStore } from '../../../core/versions/protocol-store';
import { configurePlatform, platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Version safety over real HTTP against DynamoDB Local and the SQS emulator: builds never share
 * a matchmade room, a direct join of another build is refused with the diff and its server is
 * told, the off switch, rooms and clients without a hash, and the early refusal against a
 * configuration's declared build. The spawner starts no process: it makes each room ready
 * (as `inited` would) with the build `serverBuild` names, by default its creator's.
 */
function build(components: Record<string, string>, builtAt: string): Protocol {
  return { hash: setHashOf(components), components, builtAt };
}
const X = build(
  { 'Game::Player': hash64('player 2'), 'Game::Chat': hash64('chat 1'), 'Game::Door': hash64('door 1') },
  '2026-03-02T00:00:00Z',
);
const Y = build(
  { 'Game::Player': hash64('player 1'), 'Game::Score': hash64('score 1'), 'Game::Door': hash64('door 1') },
  '2026-03-01T00:00:00Z',
);
const builds = new Map([X, Y].map((b) => [b.hash, b]));

let api: TestApi;
let rooms: RoomStore;
let components: ProtocolComponentStore;
let sqs: SQSClient;
const prefix = `rk-vs-${randomUUID().slice(0, 8)}-`;
const spawned: SpawnRequest[] = [];
/** The build a room's server reports; undefined: its creator's. */
let serverBuild: ((roomId: string) => Protocol | undefined) | undefined;

async function creatorBuild(roomId: string): Promise<Protocol | undefined> {
  const read = await rooms.read(roomId);
  const v = read?.doc.members[read.room.owner]?.v;
  return v === undefined ? undefined : builds.get(v);
}

/** The game server's `inited`, as the consumer writes it: ready, with its build. */
async function init(roomId: string, protocol: Protocol | undefined): Promise<void> {
  if (protocol) await components.remember(protocol);
  await rooms.markReady(roomId, {
    ...(protocol ? { protocol: storedProtocol(protocol) } : {}),
    initedBy: `inited-${roomId}`,
    address: '127.0.0.1',
    now: new Date(),
  });
}

class ReadyingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    const { roomId } = request;
    setTimeout(() => {
      const chosen = serverBuild ? Promise.resolve(serverBuild(roomId)) : creatorBuild(roomId);
      void chosen.then((protocol) => init(roomId, protocol));
    }, 5);
    return { taskId: `test:${roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

const tokens = new Map<string, string>();
async function tokenFor(account: string): Promise<string> {
  let token = tokens.get(account);
  if (!token) tokens.set(account, (token = await api.platform.token(account)));
  return token;
}
const post = async (path: string, account: string, body: unknown = {}) =>
  api.call('POST', path, { token: await tokenFor(account), body });

async function putConfiguration(version: string, extra: Record<string, unknown> = {}): Promise<void> {
  const put = await api.call('PUT', `/v1/admin/games/arena/versions/${version}`, {
    token: await api.platform.token('ops', ['admin']),
    body: { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600, ...extra },
  });
  expect(put.status).toBe(200);
}

async function readyRoom(overrides: Parameters<typeof aRoom>[0] = {}) {
  const room = aRoom({
    gameId: 'arena',
    players: 0,
    spawnDeadline: new Date(Date.now() + 600_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
    host: { epoch: 1, seenAt: Date.now() },
    ...overrides,
  });
  await rooms.createWithMember(room);
  return room;
}

/** The room once its server reported (the spawner's `inited` may still be on its way). */
async function readyRead(roomId: string) {
  for (let attempt = 0; ; attempt++) {
    const read = (await rooms.read(roomId))!;
    if (read.room.state !== 'spawning' || attempt >= 100) return read;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_WAIT_S: '8', REPLY_QUEUE_PREFIX: prefix });
  configurePlatform({ spawner: () => new ReadyingSpawner() });
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  components = new ProtocolComponentStore(api.platform.db, api.platform.tableName);
  sqs = lambdaPlatform().sqs;
  await putConfiguration('1');
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  spawned.length = 0;
  serverBuild = undefined;
});

describe('find-or-create with two builds side by side', () => {
  it('100 players of each, all at once: every room holds one build, its server’s', async () => {
    await putConfiguration('sides');
    const players = Array.from({ length: 200 }, (_, i) => ({ account: `side-${i}`, build: i % 2 === 0 ? X : Y }));
    await Promise.all(players.map((p) => tokenFor(p.account)));
    const answers = await Promise.all(
      players.map((p) =>
        post('/v1/matchmaking/join', p.account, { gameId: 'arena', version: 'sides', protocol: p.build }),
      ),
    );
    // Every player holds a slot (202: in a room still spawning when the answer was due).
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 202)).toEqual([]);
    const roomIds = [...new Set(answers.map((a) => a.body.room.roomId as string))];
    let seated = 0;
    const hashes = new Set<string>();
    for (const roomId of roomIds) {
      const read = await readyRead(roomId);
      const server = read.room.protocol?.h;
      const members = Object.values(read.doc.members).map((m) => m.v);
      expect({ roomId, members: [...new Set(members)] }).toEqual({ roomId, members: [server] });
      seated += members.length;
      hashes.add(server!);
    }
    expect(seated).toBe(200);
    expect([...hashes].sort()).toEqual([X.hash, Y.hash].sort());
    // Rooms of 8, filled densely per build: 13 of each, not one per player.
    expect(roomIds.length).toBeLessThanOrEqual(2 * 13 + 4);
  }, 120_000);
});

describe('a direct join of another build', () => {
  it('is refused with the diff, and the room’s game server is told through its reply queue', async () => {
    await components.remember(Y);
    const room = await readyRoom({ protocol: storedProtocol(Y) });
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: replyQueueName(prefix, room.roomId, 1) }));
    try {
      const refused = await post(`/v1/rooms/${room.roomId}/join`, 'newer-client', { protocol: X });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'PROTOCOL_MISMATCH']);
      expect(refused.body.error.details).toEqual({
        roomId: room.roomId,
        added: ['Game::Chat'],
        removed: ['Game::Score'],
        changed: ['Game::Player'],
        newer: 'client',
        clientHash: X.hash,
        serverHash: Y.hash,
      });
      expect(refused.body.error.message).toContain('rebuild and deploy the game server');
      expect((await rooms.get(room.roomId)).players).toBe(0);
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 2 }));
      expect(Messages).toHaveLength(1);
      const opened = openReply(await lambdaPlatform().sidecarKeys(room.roomId), Messages[0]!.Body ?? '');
      expect(JSON.parse(opened ?? 'null')).toEqual({
        type: 'notice',
        method: 'protocol_mismatch',
        params: {
          account: 'newer-client',
          client: { hash: X.hash, builtAt: X.builtAt },
          server: { hash: Y.hash },
          added: ['Game::Chat'],
          removed: ['Game::Score'],
          changed: ['Game::Player'],
          newer: 'client',
        },
      });
      // The same build joins.
      expect((await post(`/v1/rooms/${room.roomId}/join`, 'same-client', { protocol: Y })).status).toBe(200);
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    }
  });

  it('claimed while the room spawned, then its server came up another build: undone, 409', async () => {
    const room = await readyRoom({ state: 'spawning' });
    const joining = post(`/v1/rooms/${room.roomId}/join`, 'early-client', { protocol: X });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await init(room.roomId, Y);
    const answer = await joining;
    expect([answer.status, answer.body.error?.code]).toEqual([409, 'PROTOCOL_MISMATCH']);
    const read = (await rooms.read(room.roomId))!;
    expect([read.room.players, Object.keys(read.doc.members)]).toEqual([0, []]);
  });

  it('with the check off in the configuration, joins all the same', async () => {
    await putConfiguration('unchecked', { checkProtocol: false });
    serverBuild = () => Y;
    const created = await post('/v1/rooms', 'off-creator', { gameId: 'arena', version: 'unchecked', protocol: Y });
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId as string;
    const stored = await rooms.get(roomId);
    expect([stored.protocol?.h, stored.protocolCheck]).toEqual([Y.hash, false]);
    expect((await post(`/v1/rooms/${roomId}/join`, 'off-client', { protocol: X })).status).toBe(200);
  });

  it('a room whose server sent no hash takes any client; a client that sends none joins any room', async () => {
    const bare = await readyRoom();
    expect((await post(`/v1/rooms/${bare.roomId}/join`, 'hashed-client', { protocol: X })).status).toBe(200);
    expect((await rooms.read(bare.roomId))!.doc.members['hashed-client']?.v).toBe(X.hash);
    const built = await readyRoom({ protocol: storedProtocol(Y) });
    expect((await post(`/v1/rooms/${built.roomId}/join`, 'bare-client')).status).toBe(200);
    expect((await rooms.read(built.roomId))!.doc.members['bare-client']?.v).toBeUndefined();
  });
});

describe("a configuration's declared build", () => {
  it('refuses another build at create and matchmaking before anything starts', async () => {
    await putConfiguration('declared', { protocol: Y });
    const create = await post('/v1/rooms', 'early-1', { gameId: 'arena', version: 'declared', protocol: X });
    const match = await post('/v1/matchmaking/join', 'early-2', { gameId: 'arena', version: 'declared', protocol: X });
    for (const answer of [create, match]) {
      expect([answer.status, answer.body.error.code]).toEqual([409, 'PROTOCOL_MISMATCH']);
      expect(answer.body.error.details).toEqual({
        added: ['Game::Chat'],
        removed: ['Game::Score'],
        changed: ['Game::Player'],
        newer: 'client',
        clientHash: X.hash,
        serverHash: Y.hash,
      });
    }
    expect(spawned).toEqual([]);
    // The declared build, and a client without a hash, are served.
    expect((await post('/v1/rooms', 'early-3', { gameId: 'arena', version: 'declared', protocol: Y })).status).toBe(
      201,
    );
    expect((await post('/v1/rooms', 'early-4', { gameId: 'arena', version: 'declared' })).status).toBe(201);
  });
});

describe('matchmaking when the servers turn out another build', () => {
  it('answers 409 at once while the deployment is the same, and moves on once it changed', async () => {
    await putConfiguration('drift');
    serverBuild = () => Y;
    const body = { gameId: 'arena', version: 'drift', protocol: X };
    const first = await post('/v1/matchmaking/join', 'drift-1', body);
    expect([first.status, first.body.error?.code]).toEqual([409, 'PROTOCOL_MISMATCH']);
    const firstRoom = first.body.error.details.roomId as string;
    // The creator's reservation is undone.
    expect((await rooms.get(firstRoom)).players).toBe(0);
    const second = await post('/v1/matchmaking/join', 'drift-2', body);
    expect([second.status, second.body.error?.details.roomId]).toEqual([409, firstRoom]);
    expect(spawned).toHaveLength(1);
    // A new deployment (the server build of X): the old room is passed over, a new one made.
    await putConfiguration('drift', { env: { BUILD: 'x' } });
    serverBuild = () => X;
    const third = await post('/v1/matchmaking/join', 'drift-3', body);
    expect(third.status).toBe(200);
    expect(third.body.room.roomId).not.toBe(firstRoom);
    expect(spawned).toHaveLength(2);
  });
});

describe('a claim with criteria (the room store)', () => {
  it('fails NotMatching once the room’s settings changed, whatever the reader saw', async () => {
    const room = await readyRoom({ settings: { mode: 'ranked', map: 'harbor' } });
    // The game server's update_settings, between a matchmaker's read and its claim.
    await api.platform.db.send(
      new UpdateCommand({
        TableName: api.platform.tableName,
        Key: keys.room(room.roomId),
        UpdateExpression: 'SET settings = :s',
        ExpressionAttributeValues: { ':s': { mode: 'casual', map: 'harbor' } },
      }),
    );
    const spec = {
      members: [
        {
          account: 'matcher',
          keyHash: 'AAAAAAAAAAAAAAAAAAAAAA',
          member: newReservation(room, Date.now(), constantsOf(room).timeouts, []),
        },
      ],
      criteria: { mode: 'ranked' },
    };
    expect(await rooms.claim(room.roomId, spec, Date.now())).toEqual({ state: 'NotMatching' });
    const claimed = await rooms.claim(room.roomId, { ...spec, criteria: { mode: 'casual' } }, Date.now());
    expect(claimed).toMatchObject({ state: 'Claimed', settings: { mode: 'casual', map: 'harbor' } });
  });
});

describe('matchmaking after the game changed its settings', () => {
  it('passes the room over by the claim itself, even when its own read of the room came before the change', async () => {
    const body = { gameId: 'arena', version: '1', criteria: { mode: 'ranked' } };
    const first = await post('/v1/matchmaking/join', 'settings-1', body);
    expect(first.status).toBe(200);
    const changed = first.body.room.roomId as string;
    const before = (await readyRead(changed)).room;
    // The game server's update_settings.
    await api.platform.db.send(
      new UpdateCommand({
        TableName: api.platform.tableName,
        Key: keys.room(changed),
        UpdateExpression: 'SET settings = :s',
        ExpressionAttributeValues: { ':s': { mode: 'casual' } },
      }),
    );
    // Matchmaking's read of the room still shows the settings from before: only the claim can tell.
    const store = lambdaPlatform().rooms;
    const find = store.find.bind(store);
    const stale = jest.spyOn(store, 'find').mockImplementation(async (roomId) => {
      const room = await find(roomId);
      return room && roomId === changed ? { ...room, settings: before.settings } : room;
    });
    try {
      const second = await post('/v1/matchmaking/join', 'settings-2', body);
      expect(second.status).toBe(200);
      expect(stale).toHaveBeenCalledWith(changed);
      expect(second.body.room.roomId).not.toBe(changed);
      expect(Object.keys((await rooms.read(changed))!.doc.members)).not.toContain('settings-2');
    } finally {
      stale.mockRestore();
    }
  });
});
