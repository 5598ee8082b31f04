import { bansContract } from '../../../helpers/contracts/bans';
import { gameConfigurationsContract } from '../../../helpers/contracts/game-configurations';
import { liveRoomsContract } from '../../../helpers/contracts/live-rooms';
import { rateLimitsContract } from '../../../helpers/contracts/rate-limits';
import { roomListingContract } from '../../../helpers/contracts/room-listing';
import { roomStoreContract, roomStoreContractRetentionS } from '../../../helpers/contracts/room-store';
import { InMemoryBans } from '../../../helpers/fakes/bans';
import { InMemoryGameConfigurations } from '../../../helpers/fakes/game-configurations';
import { InMemoryLiveRooms } from '../../../helpers/fakes/live-rooms';
import { InMemoryRateLimits } from '../../../helpers/fakes/rate-limits';
import { InMemoryRoomListing } from '../../../helpers/fakes/room-listing';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';
import { MemoryLargeMemberItems } from '../../../helpers/fakes/large-members';
import { Rooms } from '../../../../core/rooms/rooms';
import { liveSubscriptionsContract } from '../../../helpers/contracts/live-subscriptions';
import { InMemoryLiveSubscriptions } from '../../../helpers/fakes/live-subscriptions';

/**
 * The in-memory fakes keep the same contracts as the stores (test/integration/stores runs
 * them on DynamoDB Local), so a unit test built on a fake pins the store's real rules.
 */
describe('Rooms on MemoryRoomItems', () => {
  roomStoreContract(() => {
    const items = new MemoryRoomItems();
    return {
      rooms: new Rooms(items, {
        endedRetentionS: roomStoreContractRetentionS,
        largeMembers: new MemoryLargeMemberItems(items),
      }),
      item: (roomId) => items.get(roomId),
      putItem: (item) => items.putNew(item),
    };
  });
});

describe('InMemoryRoomListing', () => {
  roomListingContract(() => {
    const listing = new InMemoryRoomListing();
    return {
      listing,
      seed: async (rooms) => rooms.forEach((room) => listing.save(room)),
      end: async (roomId) => listing.end(roomId),
    };
  });
});

describe('InMemoryLiveRooms', () => {
  liveRoomsContract(() => {
    const live = new InMemoryLiveRooms();
    return {
      live,
      seed: async (rooms) => rooms.forEach((room) => live.save(room, { members: { alice: { s: 0, t: 0 } }, gone: {} })),
      end: async (roomId) => live.end(roomId),
    };
  });
});

describe('InMemoryGameConfigurations', () => {
  gameConfigurationsContract(() => new InMemoryGameConfigurations());
});

describe('InMemoryBans', () => {
  bansContract(() => {
    const rates = new InMemoryRateLimits();
    return { bans: new InMemoryBans(rates), rates };
  });
});

describe('InMemoryRateLimits', () => {
  rateLimitsContract(() => new InMemoryRateLimits());
});

describe('InMemoryLiveSubscriptions', () => {
  liveSubscriptionsContract((now) => new InMemoryLiveSubscriptions(now));
});
