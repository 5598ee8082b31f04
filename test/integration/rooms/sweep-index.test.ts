import { BatchWriteCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Spawner } from '../../../core/gameservers/spawner';
import { createDocumentClient } from '../../../core/infra/aws-clients';
import { keys, liveRoomShard } from '../../../core/infra/keys';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import type { Room } from '../../../core/rooms/model';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { sweepRooms } from '../../../core/rooms/sweep';
import { SweeperStateStore } from '../../../core/rooms/sweeper-state-store';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { testSweepPolicy } from '../../helpers/sweep-policy';

/**
 * The sweeper on DynamoDB Local finds its rooms through the sweeper index (gsi3), not by
 * scanning: every command the sweep sends is recorded (low-level names: a Scan from either
 * client shows as `ScanCommand`) by a middleware on its own client, and
 * the items it reads are exactly the live rooms, however much else the table holds.
 */
let platform: TestPlatform;
let db: DynamoDBDocumentClient;
const sent: { name: string; input: Record<string, unknown> }[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: emulatorEndpoints().dynamodb });
  db.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ name: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
});
afterAll(async () => {
  db.destroy();
  await platform.close();
});

const now = new Date();
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const placed = (room: Room) => ({ ...room, placement: { taskId: `task-${room.roomId}`, host: 'h', ports: [1] } });

/** Unrelated items of other kinds (bans, idempotency records), 25 per BatchWriteItem. */
async function writeUnrelated(count: number): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    const items = Array.from({ length: Math.min(25, count - i) }, (_, j) => ({
      PutRequest: { Item: { ...keys.ban(`account-${i + j}`), type: 'ban', reason: 'filler' } },
    }));
    await platform.db.send(new BatchWriteCommand({ RequestItems: { [platform.tableName]: items } }));
  }
}

describe('the sweeper on its index', () => {
  it('fails the due rooms among many ended rooms and unrelated items, reading only live rooms and scanning nothing', async () => {
    const rooms = dynamoRoomStore(platform.db, platform.tableName);
    // 150 ended rooms (still stored: TTL collects them later) and 300 items of other kinds.
    for (let i = 0; i < 150; i++) {
      const ended = aRoom({ state: 'spawning', createdAt: secondsAgo(3600) });
      await rooms.createWithMember(ended);
      await rooms.markFailed(ended.roomId, 'spawn-failed', now);
    }
    await writeUnrelated(300);
    const spawnLate = placed(aRoom({ state: 'spawning', spawnDeadline: secondsAgo(30) }));
    const silent = placed(aRoom({ state: 'ready', lastHeartbeatAt: secondsAgo(60) }));
    const healthy = placed(aRoom({ state: 'ready', lastHeartbeatAt: secondsAgo(1) }));
    for (const room of [spawnLate, silent, healthy]) await rooms.createWithMember(room);
    const memory = new SweeperStateStore(platform.db, platform.tableName);
    await memory.write({ lastSweepAt: secondsAgo(5) });
    const stopped: string[] = [];
    const spawner: Spawner = {
      spawn: () => Promise.reject(new Error('not used')),
      stop: async (taskId) => {
        stopped.push(taskId);
      },
    };
    sent.length = 0;

    const result = await sweepRooms(
      {
        members: dynamoRoomStore(db, platform.tableName),
        live: new LiveRoomStore(db, platform.tableName),
        rooms: dynamoRoomStore(db, platform.tableName),
        spawner,
        memory,
        backlog: async () => 0,
        now: () => now,
      },
      testSweepPolicy,
    );

    expect(result.heartbeats).toBe('judged');
    expect(result.failed.sort()).toEqual([spawnLate.roomId, silent.roomId].sort());
    expect(stopped.sort()).toEqual([`task-${spawnLate.roomId}`, `task-${silent.roomId}`].sort());
    const names = sent.map((command) => command.name);
    expect(names).not.toContain('ScanCommand');
    expect(names.filter((name) => name === 'QueryCommand')).toHaveLength(8);
    expect(sent.filter((c) => c.name === 'QueryCommand').every((c) => c.input.IndexName === 'gsi3')).toBe(true);
    const read = sent
      .filter((command) => command.name === 'BatchGetItemCommand')
      .flatMap((command) => {
        const requests = command.input.RequestItems as Record<string, { Keys: { pk: string }[] }>;
        return requests[platform.tableName]?.Keys.map((key) => key.pk) ?? [];
      });
    expect(read.sort()).toEqual([spawnLate, silent, healthy].map((room) => keys.room(room.roomId).pk).sort());
  });

  it.each([
    ['fails', (rooms: RoomStore, roomId: string, at: Date) => rooms.markFailed(roomId, 'heartbeat-lost', at)],
    ['closes', (rooms: RoomStore, roomId: string, at: Date) => rooms.markClosed(roomId, at)],
  ])(
    'takes a room it %s out of the index, and gives it the configured TTL while GET still reads it',
    async (_verb, end) => {
      const retentionS = 3_600;
      const rooms = dynamoRoomStore(platform.db, platform.tableName, { endedRetentionS: retentionS });
      const room = aRoom({ state: 'ready' });
      await rooms.createWithMember(room);
      const shard = keys.sweepIndex(liveRoomShard(room.roomId));
      const indexed = async () => {
        const { Items = [] } = await platform.db.send(
          new QueryCommand({
            TableName: platform.tableName,
            IndexName: 'gsi3',
            KeyConditionExpression: 'gsi3pk = :shard AND gsi3sk = :room',
            ExpressionAttributeValues: { ':shard': shard, ':room': room.roomId },
          }),
        );
        return Items.length;
      };
      expect(await indexed()).toBe(1);

      const endedAt = new Date();
      expect((await end(rooms, room.roomId, endedAt)).applied).toBe(true);

      expect(await indexed()).toBe(0);
      const { Item } = await platform.db.send(
        new GetCommand({ TableName: platform.tableName, Key: keys.room(room.roomId), ConsistentRead: true }),
      );
      expect(Item).not.toHaveProperty('gsi3pk');
      expect(Item).not.toHaveProperty('gsi2pk');
      expect(Item?.ttl).toBe(Math.ceil(endedAt.getTime() / 1000) + retentionS);
      expect((await rooms.get(room.roomId)).state).not.toBe('ready');
    },
  );
});
