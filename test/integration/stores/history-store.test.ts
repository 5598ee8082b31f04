import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { keys } from '../../../core/infra/keys';
import { HistoryStore } from '../../../core/rooms/history-store';
import { platform } from '../../../lambdas/dependencies';
import { stopRoomTaps, tapRooms } from '../../../lambdas/stream/room-taps';
import { historyContract } from '../../helpers/contracts/history';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/** The history store on DynamoDB Local, and the table stream's consumer that writes it. */
let test: TestPlatform;
beforeAll(async () => {
  test = await startTestPlatform();
});
afterAll(async () => {
  stopRoomTaps();
  await test.close();
});

describe('HistoryStore', () => {
  historyContract(() => new HistoryStore(test.db, test.tableName, async () => undefined));
});

describe('the table stream consumer', () => {
  /** The stream record of the room's item as it is now (a NEW_IMAGE record, as DynamoDB sends it). */
  async function recordOf(roomId: string): Promise<DynamoDBStreamEvent['Records'][number]> {
    const { Item } = await test.db.send(new GetCommand({ TableName: test.tableName, Key: keys.room(roomId) }));
    return {
      eventName: 'MODIFY',
      dynamodb: {
        Keys: marshall(keys.room(roomId)) as never,
        NewImage: marshall(Item!, { removeUndefinedValues: true }) as never,
      },
    };
  }

  it('writes the history of a room’s state changes, off the request path, and a redelivered batch adds nothing', async () => {
    const p = platform();
    const now = new Date();
    const room = aRoom({ state: 'spawning', createdAt: now.toISOString(), updatedAt: now.toISOString() });
    await p.rooms.createWithMember(room);
    const created = await recordOf(room.roomId);
    const failedAt = new Date(now.getTime() + 1_000);
    expect((await p.rooms.markFailed(room.roomId, 'spawn-timeout', failedAt)).applied).toBe(true);
    const failed = await recordOf(room.roomId);

    await tapRooms({ Records: [created, failed] });
    await tapRooms({ Records: [created, failed] });

    const page = await p.history.list({ roomId: room.roomId, limit: 50 }, failedAt);
    expect(page.events.map((e) => [e.event, e.reason])).toEqual([
      ['failed', 'spawn-timeout'],
      ['spawning', undefined],
    ]);
    expect(page.events[0]).toMatchObject({ roomId: room.roomId, gameId: room.gameId, at: failedAt.toISOString() });
  });

  it('goes on when the history cannot be written: the batch (and so its taps) never fails for it', async () => {
    const p = platform();
    const room = aRoom({ state: 'spawning' });
    await p.rooms.createWithMember(room);
    const record = await recordOf(room.roomId);
    const failing = jest.spyOn(p.history, 'record').mockRejectedValue(new Error('throttled'));
    try {
      await expect(tapRooms({ Records: [record] })).resolves.toBeUndefined();
      expect(failing).toHaveBeenCalledTimes(1);
    } finally {
      failing.mockRestore();
    }
  });
});
