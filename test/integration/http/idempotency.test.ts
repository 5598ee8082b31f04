import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { shiftedClock } from '../../../core/infra/clock';
import { configurePlatform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { checkedFetch, type JsonResponse } from '../../helpers/http';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Issue 8, point 11: `Idempotency-Key` on POST /v1/rooms, POST /v1/rooms/{roomId}/join and
 * POST /v1/matchmaking/join, over real HTTP against DynamoDB Local. The spawner records spawns
 * and never starts a server (ECS has no local engine), so creates answer 202 after CREATE_WAIT_S.
 */
let api: TestApi;
let rooms: RoomStore;
let members: RoomStore;
const spawned: SpawnRequest[] = [];
const tokens = new Map<string, string>();
let offsetMs = 0;

class RecordingSpawner implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    return { taskId: `test:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_WAIT_S: '0.3', SPAWN_POLL_AFTER_S: '7' });
  configurePlatform({ spawner: () => new RecordingSpawner(), clock: shiftedClock(() => offsetMs) });
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  members = dynamoRoomStore(api.platform.db, api.platform.tableName);
  const admin = await api.platform.token('ops', ['admin']);
  const put = await api.call('PUT', '/v1/admin/games/arena/versions/1', {
    token: admin,
    body: { binary: '/bin/true', maxPlayers: 8, spawnTimeoutS: 600 },
  });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  offsetMs = 0;
  spawned.length = 0;
});

async function tokenFor(account: string): Promise<string> {
  let token = tokens.get(account);
  if (!token) tokens.set(account, (token = await api.platform.token(account)));
  return token;
}

async function post(path: string, account: string, key: string | undefined, body: unknown = {}): Promise<JsonResponse> {
  const response = await checkedFetch(`${api.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor(account)}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function readyRoom(maxPlayers = 8) {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers,
    spawnDeadline: new Date(Date.now() + 3_600_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  await rooms.createWithMember(room);
  return room;
}

async function membersOf(roomId: string) {
  return members.listMembers(roomId);
}

const createBody = { gameId: 'arena', version: '1', settings: { map: 'harbor' } };

describe('POST /v1/rooms with Idempotency-Key', () => {
  it('makes one room for two creates with the same key, and answers both identically', async () => {
    const first = await post('/v1/rooms', 'creator', 'create-1', createBody);
    const second = await post('/v1/rooms', 'creator', 'create-1', createBody);
    expect(first.status).toBe(202);
    // A spawning room's 202 says when to read it again, replayed as it was.
    expect([first.headers.get('retry-after'), second.headers.get('retry-after')]).toEqual(['7', '7']);
    const joiner = await post(`/v1/rooms/${first.body.room.roomId}/join`, 'joiner', undefined);
    expect([joiner.status, joiner.headers.get('retry-after')]).toEqual([202, '7']);
    expect([second.status, second.body]).toEqual([first.status, first.body]);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(spawned).toHaveLength(1);
    // Without the key, the same body is a new request: a second room.
    const third = await post('/v1/rooms', 'creator', undefined, createBody);
    expect(third.body.room.roomId).not.toBe(first.body.room.roomId);
  });

  it('refuses the same key with a different body: 400 BAD_REQUEST saying so, nothing created', async () => {
    await post('/v1/rooms', 'creator', 'create-2', createBody);
    const other = await post('/v1/rooms', 'creator', 'create-2', { ...createBody, settings: { map: 'desert' } });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('different request'),
      details: { fields: [{ field: 'header.idempotency-key' }] },
    });
    expect(spawned).toHaveLength(1);
  });

  it('keeps keys apart per account: the same key from another account is its own request', async () => {
    const mine = await post('/v1/rooms', 'creator', 'shared-key', createBody);
    const theirs = await post('/v1/rooms', 'someone-else', 'shared-key', createBody);
    expect(theirs.body.room.roomId).not.toBe(mine.body.room.roomId);
  });

  it('makes a new room with the same key once 10 minutes have passed (platform clock moved)', async () => {
    const first = await post('/v1/rooms', 'creator', 'create-3', createBody);
    offsetMs = 9 * 60_000;
    expect((await post('/v1/rooms', 'creator', 'create-3', createBody)).body).toEqual(first.body);
    offsetMs = 10 * 60_000 + 1000;
    const later = await post('/v1/rooms', 'creator', 'create-3', createBody);
    expect(later.status).toBe(202);
    expect(later.body.room.roomId).not.toBe(first.body.room.roomId);
    expect(spawned).toHaveLength(2);
  });
});

describe('POST /v1/rooms/{roomId}/join with Idempotency-Key', () => {
  it('answers a second join with the same key with the same reservation key, and the first key keeps working', async () => {
    const room = await readyRoom();
    const first = await post(`/v1/rooms/${room.roomId}/join`, 'joiner', 'join-1');
    const second = await post(`/v1/rooms/${room.roomId}/join`, 'joiner', 'join-1');
    expect(first.status).toBe(200);
    expect([second.status, second.body]).toEqual([200, first.body]);
    const stored = await membersOf(room.roomId);
    expect(stored).toHaveLength(1);
    // The first key is still the one the room knows: not re-keyed by the repeat.
    const read = await members.read(room.roomId);
    if (!read) throw new Error('room vanished');
    const verdict = await members.confirm(
      read,
      hashRegistrationKey(first.body.reservation.key),
      'game-request-1',
      new Date(),
    );
    expect(verdict.state).toBe('Confirmed');
    expect((await rooms.get(room.roomId)).players).toBe(1);
  });

  it('without a key, a repeat join re-keys (the behaviour the header exists to avoid)', async () => {
    const room = await readyRoom();
    const first = await post(`/v1/rooms/${room.roomId}/join`, 'joiner', undefined);
    const second = await post(`/v1/rooms/${room.roomId}/join`, 'joiner', undefined);
    expect(second.body.reservation.key).not.toBe(first.body.reservation.key);
  });

  it('lets 50 parallel joins with the same key have one effect: one slot, one key, every answer the same', async () => {
    const room = await readyRoom(8);
    await tokenFor('racer');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(`/v1/rooms/${room.roomId}/join`, 'racer', 'race-key')),
    );
    const statuses = answers.reduce<Record<number, number>>(
      (acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `50 parallel joins, one Idempotency-Key: ${JSON.stringify(statuses)} (expected only 200, maybe 503)\n`,
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.body.reservation.key)).size).toBe(1);
    // A duplicate that outwaited the first is told to retry, never given a different answer.
    for (const busy of answers.filter((a) => a.status !== 200)) {
      expect([busy.status, busy.body.error.code, Number(busy.headers.get('retry-after')) >= 1]).toEqual([
        503,
        'UNAVAILABLE',
        true,
      ]);
    }
    expect(await membersOf(room.roomId)).toHaveLength(1);
    expect((await rooms.get(room.roomId)).players).toBe(1);
    const retry = await post(`/v1/rooms/${room.roomId}/join`, 'racer', 'race-key');
    expect(retry.body).toEqual(ok[0]!.body);
  });

  it('replays a final business refusal (409 ROOM_FULL) even after a slot has freed', async () => {
    const full = await readyRoom(1);
    await post(`/v1/rooms/${full.roomId}/join`, 'first-in', undefined);
    const refused = await post(`/v1/rooms/${full.roomId}/join`, 'late', 'late-key');
    expect(refused.body.error.code).toBe('ROOM_FULL');
    const left = await api.call('DELETE', `/v1/rooms/${full.roomId}/members/me`, { token: await tokenFor('first-in') });
    expect(left.status).toBe(204);
    const again = await post(`/v1/rooms/${full.roomId}/join`, 'late', 'late-key');
    expect([again.status, again.body]).toEqual([409, refused.body]);
  });

  it('refuses the same key on another room: 400', async () => {
    const [a, b] = [await readyRoom(), await readyRoom()];
    expect((await post(`/v1/rooms/${a.roomId}/join`, 'hopper', 'hop')).status).toBe(200);
    const other = await post(`/v1/rooms/${b.roomId}/join`, 'hopper', 'hop');
    expect([other.status, other.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(await membersOf(b.roomId)).toHaveLength(0);
  });
});

describe('POST /v1/matchmaking/join with Idempotency-Key', () => {
  it('answers a repeat with the same room and reservation key, creating and joining nothing more', async () => {
    const body = { gameId: 'arena', version: '1', criteria: { mode: 'duel' } };
    const first = await post('/v1/matchmaking/join', 'matcher', 'match-1', body);
    const second = await post('/v1/matchmaking/join', 'matcher', 'match-1', body);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(second.body).toEqual(first.body);
    expect(first.body.reservation.key).toEqual(expect.any(String));
    expect(spawned).toHaveLength(1);
    expect(await membersOf(first.body.room.roomId)).toHaveLength(1);
  });
});

describe('the header itself', () => {
  it.each([
    ['empty', ''],
    ['65 characters', 'k'.repeat(65)],
    ['non-ASCII', 'clé'],
  ])('refuses a key that is %s with 400 naming the header, before anything happens', async (_name, key) => {
    const room = await readyRoom();
    const response = await checkedFetch(`${api.url}/v1/rooms/${room.roomId}/join`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokenFor('picky')}`,
        'content-type': 'application/json',
        'idempotency-key': Buffer.from(key, 'utf8').toString('latin1'),
      },
      body: '{}',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: { fields: { field: string }[] } } };
    expect(body.error.details.fields[0]!.field).toBe('header.idempotency-key');
    expect(await membersOf(room.roomId)).toHaveLength(0);
  });

  it('accepts 64 printable characters', async () => {
    const room = await readyRoom();
    expect((await post(`/v1/rooms/${room.roomId}/join`, 'picky', `${'~'.repeat(63)} `.trimEnd() + '!')).status).toBe(
      200,
    );
  });

  it('keeps no plaintext answer in the table: the stored reservation key appears nowhere', async () => {
    const room = await readyRoom();
    const joined = await post(`/v1/rooms/${room.roomId}/join`, 'secretive', 'secret-key');
    const { Items } = await api.platform.db.send(new ScanCommand({ TableName: api.platform.tableName }));
    const records = (Items ?? []).filter((item) => item.type === 'idempotencyRecord');
    expect(records.length).toBeGreaterThan(0);
    expect(JSON.stringify(Items)).not.toContain(joined.body.reservation.key);
    expect(JSON.stringify(records)).not.toContain('secret-key');
  });
});
