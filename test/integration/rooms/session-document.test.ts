import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../core/infra/keys';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The session document on DynamoDB Local: its size with 100 members, what a join writes, and
 * the join's latency next to one raw conditional UpdateItem (printed, never asserted: timing
 * belongs to `npm run bench`).
 */
let api: TestApi;
let rooms: RoomStore;
let sessions: RoomStore;

beforeAll(async () => {
  api = await startTestApi({ JOIN_RATE_LIMIT_PER_MINUTE: '10000' });
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  sessions = dynamoRoomStore(api.platform.db, api.platform.tableName);
});
afterAll(async () => api.close());

/** DynamoDB's item size rules (names + values; numbers ≈ 1 byte per 2 significant digits + 1). */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/^0+|\.|0+$/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, v) => sum + 1 + sizeOf(v), 0);
  if (typeof value === 'object') {
    return (
      3 +
      Object.entries(value as Record<string, unknown>).reduce(
        (sum, [name, v]) => sum + 1 + Buffer.byteLength(name) + sizeOf(v),
        0,
      )
    );
  }
  return 0;
}
const itemSize = (item: Record<string, unknown>) =>
  Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + sizeOf(v), 0);

async function readyRoom(maxPlayers: number) {
  const now = new Date();
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers,
    reservationTimeoutS: 30,
    createdAt: now.toISOString(),
    readyAt: now.toISOString(),
    lastHeartbeatAt: now.toISOString(),
    spawnDeadline: new Date(now.getTime() + 60_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  await rooms.createWithMember(room);
  return room;
}

async function rawItem(roomId: string) {
  const { Item } = await api.platform.db.send(
    new GetCommand({ TableName: api.platform.tableName, Key: keys.room(roomId), ConsistentRead: true }),
  );
  return Item ?? {};
}

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;

describe('a room of 100 members is one small item', () => {
  it('holds 100 reservations in well under 400 KB (a few dozen bytes each), players equal to members', async () => {
    const room = await readyRoom(100);
    const empty = itemSize(await rawItem(room.roomId));
    // Accounts as identity providers issue them: `auth0|` + 24 hex characters (30 bytes).
    const accounts = Array.from({ length: 100 }, () => `auth0|${randomUUID().replaceAll('-', '').slice(0, 24)}`);
    const tokens = await Promise.all(accounts.map((a) => api.platform.token(a, ['play'])));
    const latencies: number[] = [];
    for (const token of tokens) {
      const started = performance.now();
      const response = await api.call('POST', `/v1/rooms/${room.roomId}/join`, { token });
      latencies.push(performance.now() - started);
      expect(response.status).toBe(200);
    }
    const item = await rawItem(room.roomId);
    const full = itemSize(item);
    const perMember = (full - empty) / 100;
    const members = await sessions.listMembers(room.roomId);
    expect([item.players, members.length]).toEqual([100, 100]);
    // The account once (the key hash lives in its member), not twice: the old layout took ≈ 120 B; a reservation stores no expiry (`t` + the template's timeout).
    expect(perMember).toBeLessThan(85);
    expect(full).toBeLessThan(16 * 1024);

    // The same DynamoDB Local, the same client: one conditional UpdateItem on a small item.
    const small = { pk: `BENCH#${randomUUID()}`, sk: 'SMALL' };
    await api.platform.db.send(new PutCommand({ TableName: api.platform.tableName, Item: { ...small, n: 0 } }));
    const raw: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      await api.platform.db.send(
        new UpdateCommand({
          TableName: api.platform.tableName,
          Key: small,
          UpdateExpression: 'SET n = n + :one',
          ConditionExpression: 'n < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': 1_000_000 },
        }),
      );
      raw.push(performance.now() - started);
    }
    process.stdout.write(
      `session document: empty room ${empty} B, 100 members ${full} B, ${perMember.toFixed(1)} B per member ` +
        `(account 30 B); join over HTTP p50 ${p50(latencies).toFixed(2)} ms (room filled 1→100), ` +
        `raw conditional UpdateItem p50 ${p50(raw).toFixed(2)} ms, ratio ${(p50(latencies) / p50(raw)).toFixed(1)}\n`,
    );
  });
});

describe("a creator's reservation (pending while the room spawns)", () => {
  it('expires reservationTimeoutS after the room became ready, not after the spawn deadline', async () => {
    const created = new Date(Date.now() - 50_000);
    const room = aRoom({
      state: 'spawning',
      players: 1,
      reservationTimeoutS: 30,
      createdAt: created.toISOString(),
      // The deadline lies 20 s ahead: the old rule expired the creator 50 s from now.
      spawnDeadline: new Date(created.getTime() + 70_000).toISOString(),
    });
    await rooms.createWithMember(room, {
      account: 'creator',
      keyHash: 'cd'.repeat(32),
      scopes: [],
      createdAt: created.toISOString(),
    });
    // 50 s of spawning (longer than the timeout) take nothing from the creator.
    expect(await sessions.findMember(room.roomId, 'creator')).toMatchObject({ state: 'reserved', pending: true });
    const readyAt = new Date();
    expect(
      (await rooms.markReady(room.roomId, { address: '127.0.0.1', initedBy: 'inited-1', now: readyAt })).applied,
    ).toBe(true);
    expect((await sessions.findMember(room.roomId, 'creator'))?.expiresAt).toBe(
      new Date(readyAt.getTime() + 30_000).toISOString(),
    );
    expect(await sessions.reclaimExpired(room.roomId, new Date(readyAt.getTime() + 29_999))).toBe(0);
    expect(await sessions.reclaimExpired(room.roomId, new Date(readyAt.getTime() + 30_000))).toBe(1);
    expect((await rooms.get(room.roomId)).players).toBe(0);
  });
});
