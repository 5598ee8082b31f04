import { keys } from '../../../core/infra/keys';
import type { RoomListing, RoomListingQuery, RoomPage } from '../../../core/rooms/list-store';
import { isLive, listedRoomFields, type ListedRoom, type Room } from '../../../core/rooms/model';
import { decodePageToken, encodePageToken } from '../../../core/rooms/page-token';

/**
 * `RoomListing` in memory, for unit tests, with the listing index's semantics:
 *
 * - the index holds live rooms only (`end` takes a room out, as failing or closing does);
 * - a listing is one partition (game, version, region), ordered by creation time, then room id;
 * - `limit` bounds the rooms *examined* before the filter (ready, a free slot, visibility and
 *   joinability `open`), as DynamoDB's
 *   `Limit` does: a page may hold fewer rooms than the limit, and carries a token whenever it
 *   stopped at the limit;
 * - tokens are the same index keys the store issues, checked by the same `decodePageToken`.
 */
export class InMemoryRoomListing implements RoomListing {
  private readonly rooms = new Map<string, Room>();

  /** Arranges a room as the room store would have written it (indexed while live). */
  save(room: Room): void {
    this.rooms.set(room.roomId, structuredClone(room));
  }

  /** The room failed or closed: it leaves the index. */
  end(roomId: string): void {
    const room = this.rooms.get(roomId);
    if (room) this.rooms.set(roomId, { ...room, state: 'failed' });
  }

  async listOpen(query: RoomListingQuery, pageToken: string | undefined, limit: number): Promise<RoomPage> {
    const partition = keys.listingIndex(query.gameId, query.version, query.region);
    const start = decodePageToken(pageToken, partition);
    const indexed = this.indexed()
      .filter((entry) => entry.key.gsi2pk === partition)
      .filter((entry) => start === undefined || entry.key.gsi2sk > start.gsi2sk);
    const examined = indexed.slice(0, limit);
    const rooms = examined
      .map((entry) => entry.room)
      .filter((room) => room.state === 'ready' && room.players < room.maxPlayers)
      .filter(
        (room) =>
          (room.constants?.visibility ?? 'open') === 'open' && (room.properties?.joinability ?? 'open') === 'open',
      )
      // The index copies only the listed fields (core/infra/table.ts), so the fake hands back no more.
      .map((room) => listedPartOf(structuredClone(room)));
    const last = examined.at(-1);
    return examined.length === limit && last ? { rooms, nextToken: encodePageToken(last.key) } : { rooms };
  }

  private indexed() {
    return [...this.rooms.values()]
      .filter((room) => isLive(room.state))
      .flatMap((room) => {
        // The key a gsi2 query hands back as LastEvaluatedKey: table key and gsi2 key, nothing else.
        const { gsi2pk, gsi2sk } = keys.roomIndexes(room);
        return gsi2pk !== undefined && gsi2sk !== undefined
          ? [{ room, key: { ...keys.room(room.roomId), gsi2pk, gsi2sk } }]
          : [];
      })
      .sort((a, b) => (a.key.gsi2sk < b.key.gsi2sk ? -1 : a.key.gsi2sk > b.key.gsi2sk ? 1 : 0));
  }
}

export function listedPartOf(room: Room): ListedRoom {
  return Object.fromEntries(
    listedRoomFields.filter((field) => room[field] !== undefined).map((field) => [field, room[field]]),
  ) as unknown as ListedRoom;
}
