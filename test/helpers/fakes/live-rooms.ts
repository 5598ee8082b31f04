import { decodeIndexCursor, encodeIndexCursor } from '../../../core/infra/index-cursor';
import { keys, liveRoomShard } from '../../../core/infra/keys';
import {
  liveRoomListing,
  type LiveRoom,
  type LiveRoomIndex,
  type LiveRoomPage,
  type LiveRoomPages,
} from '../../../core/rooms/live-room-store';
import { isLive, type Room } from '../../../core/rooms/model';
import type { SessionDocument } from '../../../core/rooms/document';

/**
 * `LiveRoomIndex` in memory, for unit tests, with the sweeper index's semantics: a room is in
 * it from its creation until it fails or closes, whatever else is stored; rooms come back in
 * room id order, each with its session document.
 */
export class InMemoryLiveRooms implements LiveRoomIndex, LiveRoomPages {
  private readonly rooms = new Map<string, LiveRoom>();

  /** Arranges a room as the room store would have written it (indexed while live). */
  save(room: Room, doc: SessionDocument = { members: {}, gone: {} }): void {
    this.rooms.set(room.roomId, structuredClone({ room, doc }));
  }

  /** The room failed or closed: it leaves the index. */
  end(roomId: string): void {
    const entry = this.rooms.get(roomId);
    if (entry) this.rooms.set(roomId, { ...entry, room: { ...entry.room, state: 'failed' } });
  }

  async liveAmong(roomIds: readonly string[]): Promise<Set<string>> {
    return new Set(roomIds.filter((roomId) => isLive(this.rooms.get(roomId)?.room.state ?? 'closed')));
  }

  async liveRooms(): Promise<LiveRoom[]> {
    return [...this.rooms.values()]
      .filter((entry) => isLive(entry.room.state))
      .sort((a, b) => (a.room.roomId < b.room.roomId ? -1 : a.room.roomId > b.room.roomId ? 1 : 0))
      .map((entry) => structuredClone(entry));
  }

  /** The store's order and tokens: shard by shard, room id order within one; `limit` entries a page. */
  async page(pageToken: string | undefined, limit: number): Promise<LiveRoomPage> {
    const cursor = decodeIndexCursor(pageToken, liveRoomListing);
    const fromShard = cursor ? liveRoomListing.partitions.indexOf(cursor.partition) : 0;
    const byPosition = (a: Room, b: Room) =>
      liveRoomShard(a.roomId) - liveRoomShard(b.roomId) || (a.roomId < b.roomId ? -1 : a.roomId > b.roomId ? 1 : 0);
    const ahead = (room: Room) => {
      const shard = liveRoomShard(room.roomId);
      if (cursor?.after === undefined || shard !== fromShard) return shard >= fromShard;
      return room.roomId > cursor.after.gsi3sk;
    };
    const remaining = [...this.rooms.values()]
      .map((entry) => entry.room)
      .filter((room) => isLive(room.state) && ahead(room))
      .sort(byPosition);
    const rooms = remaining.slice(0, limit).map((room) => structuredClone(room));
    const last = rooms.at(-1);
    if (remaining.length <= limit || !last) return { rooms };
    const partition = keys.sweepIndex(liveRoomShard(last.roomId));
    return {
      rooms,
      nextToken: encodeIndexCursor({
        partition,
        after: { ...keys.room(last.roomId), gsi3pk: partition, gsi3sk: last.roomId },
      }),
    };
  }
}
