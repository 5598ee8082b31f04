import { BanStore } from '../../../core/abuse/ban-store';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import { GameConfigurationStore } from '../../../core/gameservers/configuration-store';
import { RoomListStore } from '../../../core/rooms/list-store';
import { RoomStore } from '../../../core/rooms/store';
import { bansContract } from '../../helpers/contracts/bans';
import { gameConfigurationsContract } from '../../helpers/contracts/game-configurations';
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

describe('GameConfigurationStore', () => {
  gameConfigurationsContract(() => new GameConfigurationStore(platform.db, platform.tableName));
});

describe('BanStore', () => {
  bansContract(() => new BanStore(platform.db, platform.tableName));
});

describe('RateLimitStore', () => {
  rateLimitsContract(() => new RateLimitStore(platform.db, platform.tableName));
});
