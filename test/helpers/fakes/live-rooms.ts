import type { LiveRoom, LiveRoomIndex } from '../../../core/rooms/live-room-store';
import { isLive, type Room } from '../../../core/rooms/model';
import type { SessionDocument } from '../../../core/rooms/document';

/**
 * `LiveRoomIndex` in memory, for unit tests, with the sweeper index's semantics: a room is in
 * it from its creation until it fails or closes, whatever else is stored; rooms come back in
 * room id order, each with its session document.
 */
export class InMemoryLiveRooms implements LiveRoomIndex {
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
}
