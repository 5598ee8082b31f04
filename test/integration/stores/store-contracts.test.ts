import { BanStore } from '../../../core/abuse/ban-store';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import { GameConfigurationStore } from '../../../core/gameservers/configuration-store';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { RoomListStore } from '../../../core/rooms/list-store';
import { LiveRoomStore } from '../../../core/rooms/live-room-store';
import { DynamoRoomItems, dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { DynamoLargeMemberItems } from '../../../core/rooms/large-member-store';
import { Rooms } from '../../../core/rooms/rooms';
import { bansContract } from '../../helpers/contracts/bans';
import { aConfiguration, gameConfigurationsContract } from '../../helpers/contracts/game-configurations';
import { liveRoomsContract } from '../../helpers/contracts/live-rooms';
import { rateLimitsContract } from '../../helpers/contracts/rate-limits';
import { roomListingContract } from '../../helpers/contracts/room-listing';
import { roomStoreContract, roomStoreContractRetentionS } from '../../helpers/contracts/room-store';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { liveSubscriptionsContract } from '../../helpers/contracts/live-subscriptions';
import { DynamoLiveSubscriptions } from '../../../core/live/subscription-store';

/** The same contracts the in-memory fakes keep (test/unit/helpers/fakes), on DynamoDB Local. */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.close();
});

describe('Rooms on DynamoRoomItems', () => {
  roomStoreContract(() => {
    const items = new DynamoRoomItems(platform.db, platform.tableName);
    return {
      rooms: new Rooms(items, {
        endedRetentionS: roomStoreContractRetentionS,
        largeMembers: new DynamoLargeMemberItems(platform.db, platform.tableName),
      }),
      item: (roomId) => items.get(roomId),
      putItem: (item) => items.putNew(item),
    };
  });
});

describe('RoomListStore', () => {
  roomListingContract(() => {
    const rooms = dynamoRoomStore(platform.db, platform.tableName);
    return {
      listing: new RoomListStore(platform.db, platform.tableName),
      seed: async (list) => {
        for (const room of list) await rooms.createWithMember(room);
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
    const rooms = dynamoRoomStore(platform.db, platform.tableName);
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
  gameConfigurationsContract(() => new GameConfigurationStore(platform.db, platform.tableName, new PlatformCache()));

  it('serves recent reads from its process’s cache: another process’s change within the bound, its own at once', async () => {
    // Not 0: lru-cache takes an entry started at 0 for one without a start, and never expires it.
    let nowMs = 1_000;
    const here = new GameConfigurationStore(platform.db, platform.tableName, new PlatformCache({ nowMs: () => nowMs }));
    // Another process (another Lambda instance): a cache of its own.
    const other = new GameConfigurationStore(platform.db, platform.tableName, new PlatformCache());
    const first = aConfiguration({ maxPlayers: 4 });
    await here.put(first);
    await expect(here.recent(first.gameId, first.version)).resolves.toEqual(first);
    await other.put({ ...first, maxPlayers: 8 });
    await expect(here.recent(first.gameId, first.version)).resolves.toEqual(first);
    // The bound: a change an admin made anywhere reaches creates within 1 s.
    nowMs += 1_001;
    await expect(here.recent(first.gameId, first.version)).resolves.toMatchObject({ maxPlayers: 8 });
    await here.put({ ...first, maxPlayers: 2 });
    await expect(here.recent(first.gameId, first.version)).resolves.toMatchObject({ maxPlayers: 2 });
  });
});

describe('BanStore', () => {
  bansContract(() => ({
    bans: new BanStore(platform.db, platform.tableName),
    rates: new RateLimitStore(platform.db, platform.tableName),
  }));
});

describe('RateLimitStore', () => {
  rateLimitsContract(() => new RateLimitStore(platform.db, platform.tableName));
});

describe('DynamoLiveSubscriptions', () => {
  liveSubscriptionsContract((now) => new DynamoLiveSubscriptions(platform.db, platform.tableName, now));
});
