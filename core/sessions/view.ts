import { toRoomView, type Room, type RoomView } from '../rooms/model';
import { expiredMembers, type SessionDocument } from './document';

/**
 * The room as a reader should see it at `now`: members whose time ran out no longer count,
 * even before anything has removed them (lazy expiry on every read).
 */
export function roomViewAt(room: Room, doc: SessionDocument, now: Date): RoomView {
  const expired = expiredMembers(doc, room, now.getTime()).length;
  return { ...toRoomView(room), players: Math.max(0, room.players - expired) };
}
