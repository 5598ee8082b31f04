import { decodeIndexCursor, encodeIndexCursor, type IndexListing } from '../../../../core/infra/index-cursor';
import { keys, liveRoomShard } from '../../../../core/infra/keys';
import { liveRoomListing } from '../../../../core/rooms/live-room-store';
import { gameCatalogListing } from '../../../../core/gameservers/configuration-store';

const roomId = 'r-1';
const shard = keys.sweepIndex(liveRoomShard(roomId));
const otherShard = keys.sweepIndex((liveRoomShard(roomId) + 1) % 8);
const issued = { partition: shard, after: { ...keys.room(roomId), gsi3pk: shard, gsi3sk: roomId } };
const token = (cursor: unknown) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

describe('decodeIndexCursor', () => {
  it('gives back the cursor it encoded, a shard alone too, and nothing for no token', () => {
    expect(decodeIndexCursor(encodeIndexCursor(issued), liveRoomListing)).toEqual(issued);
    expect(decodeIndexCursor(encodeIndexCursor({ partition: otherShard }), liveRoomListing)).toEqual({
      partition: otherShard,
    });
    expect(decodeIndexCursor(undefined, liveRoomListing)).toBeUndefined();
    expect(decodeIndexCursor('', liveRoomListing)).toBeUndefined();
  });

  it('takes a catalog entry back only as the key of its own configuration', () => {
    const entry = { ...keys.gameConfiguration('arena', '1.0'), ...keys.gameCatalogEntry('arena', '1.0') };
    const cursor = { partition: keys.gameCatalogIndex, after: entry };
    expect(decodeIndexCursor(encodeIndexCursor(cursor), gameCatalogListing)).toEqual(cursor);
    const forged = { ...cursor, after: { ...entry, pk: 'GAME#other' } };
    expect(() => decodeIndexCursor(encodeIndexCursor(forged), gameCatalogListing)).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });

  it.each<[string, unknown, IndexListing?]>([
    ['a partition the listing does not read', { partition: 'CATALOG#GAME' }],
    ['the sweeper state', { partition: 'SWEEPER' }],
    ['a key of another partition than the cursor', { ...issued, partition: otherShard }],
    ['a room in the wrong shard', { partition: otherShard, after: { ...issued.after, gsi3pk: otherShard } }],
    ['another item kind', { ...issued, after: { ...issued.after, pk: 'ACCOUNT#alice', sk: 'BAN' } }],
    ['a sort key of another room', { ...issued, after: { ...issued.after, gsi3sk: 'r-2' } }],
    ['an empty sort key', { ...issued, after: { ...issued.after, gsi3sk: '' } }],
    ['an oversized sort key', { ...issued, after: { ...issued.after, gsi3sk: 'r'.repeat(300) } }],
    ['an extra attribute', { ...issued, after: { ...issued.after, players: 1 } }],
    ['numbers', { partition: 1 }],
    ['an array', [issued]],
    ['not JSON', 'garbage'],
    [
      'a catalog entry of a name no configuration has',
      {
        partition: 'CATALOG#GAME',
        after: { pk: 'GAME#a#b', sk: 'VERSION#c', gsi3pk: 'CATALOG#GAME', gsi3sk: 'a#b#c' },
      },
      gameCatalogListing,
    ],
  ])('refuses a token holding %s with 400 naming query.nextToken', (_name, cursor, listing = liveRoomListing) => {
    expect(() => decodeIndexCursor(typeof cursor === 'string' ? cursor : token(cursor), listing)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [expect.objectContaining({ field: 'query.nextToken' })] },
      }),
    );
  });
});
