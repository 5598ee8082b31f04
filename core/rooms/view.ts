import type { Member } from '../reservations/model';
import { holdsSlot } from '../reservations/store';
import { toRoomView, type Room, type RoomView } from './model';

/**
 * The room as a reader should see it at `now`: reservations that expired no longer count,
 * even before anything has removed them (lazy expiry on every read).
 */
export function roomViewAt(room: Room, members: readonly Member[], now: Date): RoomView {
  const expired = members.filter((m) => !holdsSlot(m, now)).length;
  return { ...toRoomView(room), players: Math.max(0, room.players - expired) };
}
