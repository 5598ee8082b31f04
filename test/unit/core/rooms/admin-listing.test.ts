import { listedForAdmins, listLiveRooms, type AdminRoomFilter } from '../../../../core/rooms/admin-listing';
import { aRoom } from '../../../helpers/factories';
import { InMemoryLiveRooms } from '../../../helpers/fakes/live-rooms';

const room = aRoom({ gameId: 'arena', version: '2', region: 'eu', state: 'ready', template: 'duel' });

describe('listedForAdmins', () => {
  it.each<[string, AdminRoomFilter, boolean]>([
    ['no filter', {}, true],
    ['every field matching', { gameId: 'arena', version: '2', region: 'eu', state: 'ready', template: 'duel' }, true],
    ['another game', { gameId: 'other' }, false],
    ['another version', { version: '1' }, false],
    ['another region', { region: 'us' }, false],
    ['another state', { state: 'spawning' }, false],
    ['another template', { template: 'lobby' }, false],
  ])('%s', (_name, filter, shown) => {
    expect(listedForAdmins(room, filter)).toBe(shown);
  });

  it('never lists a warm-pool server waiting for a create, nor a room of the default template under a template filter', () => {
    expect(listedForAdmins({ ...room, standby: true }, {})).toBe(false);
    expect(listedForAdmins({ ...room, template: null }, { template: 'duel' })).toBe(false);
  });
});

describe('listLiveRooms', () => {
  it('filters each page after its read: short pages carry a token until the index is read, every match once', async () => {
    const live = new InMemoryLiveRooms();
    const matching = Array.from({ length: 3 }, () => aRoom({ gameId: 'arena' }));
    for (const r of [...matching, ...Array.from({ length: 6 }, () => aRoom({ gameId: 'other' }))]) live.save(r);
    live.save(aRoom({ gameId: 'arena', standby: true }));

    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await listLiveRooms(live, { gameId: 'arena' }, nextToken, 2);
      seen.push(...page.rooms.map((r) => r.roomId));
      nextToken = page.nextToken;
      pages++;
    } while (nextToken);

    expect(seen.sort()).toEqual(matching.map((r) => r.roomId).sort());
    expect(pages).toBe(5);
  });
});
