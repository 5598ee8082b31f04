import { BanStore } from '../../../core/abuse/ban-store';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import { GameConfigurationStore } from '../../../core/gameservers/configuration-store';
import { RoomListStore } from '../../../core/rooms/list-store';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import { RoomStore } from '../../../core/rooms/store';
import { bansContract } from '../../helpers/contracts/bans';
import { gameConfigurationsContract } from '../../helpers/contracts/game-configurations';
import { liveRoomsContract } from '../../helpers/contracts/live-rooms';
import { rateLimitsContract } from '../../helpers/contracts/rate-limits';
import { roomListingContract } from '../../helpers/contracts/room-listing';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/** The same contracts the in-memory fakes keep (test/unit/helpers/fakes), on DynamoDB Local. */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.close();
});

describe('RoomListStore', () => {
  roomListingContract(() => {
    const rooms = new RoomStore(platform.db, platform.tableName);
    return {
      listing: new RoomListStore(platform.db, platform.tableName),
      seed: async (list) => {
        for (const room of list) await rooms.create(room);
      },
      end: async (roomId) => {
        const change = await rooms.markFailed(roomId, 'sidecar-lost', new Date());
        expect(change.applied).toBe(true);
      },
    };
  });
});

describe('LiveRoomStore', () => {
  liveRoomsContract(() => {
    const rooms = new RoomStore(platform.db, platform.tableName);
    return {
      live: new LiveRoomStore(platform.db, platform.tableName),
      seed: async (list) => {
        for (const room of list) {
          await rooms.createWithMember(room, {
            account: 'alice',
            keyHash: 'ab'.repeat(32),
            scopes: [],
            createdAt: room.createdAt,
            expiresAt: '2030-01-01T00:00:00.000Z',
          });
        }
      },
      end: async (roomId) => {
        const change = await rooms.markFailed(roomId, 'sidecar-lost', new Date());
        expect(change.applied).toBe(true);
      },
    };
  });
});

describe('GameConfigurationStore', () => {
  gameConfigurationsContract(() => new GameConfigurationStore(platform.db, platform.tableName));
});

describe('BanStore', () => {
  bansContract(() => new BanStore(platform.db, platform.tableName));
});

describe('RateLimitStore', () => {
  rateLimitsContract(() => new RateLimitStore(platform.db, platform.tableName));
});
