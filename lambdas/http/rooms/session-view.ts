import { RoomNotFoundError } from '../../../core/rooms/errors';
import type { Room } from '../../../core/rooms/model';
import {
  joinedAfterEnd,
  roomOnlyView,
  sessionRoomView,
  type SessionRoomView,
} from '../../../core/sessions/room-response';
import type { Platform } from '../../dependencies';

/**
 * The room view a create or join answers with: the session document as it is now, so the
 * members (the caller among them) and the change number are those of one consistent read.
 * One GetItem after the write; the write's own answer does not carry the members.
 *
 * A join that landed in a session already over (empty for `sessionEmptyMs`) ends it now and
 * answers 404, as a read before the join would have.
 */
export async function memberViewOf(p: Platform, room: Room, account: string): Promise<SessionRoomView> {
  const read = await p.sessions.read(room.roomId);
  // Gone meanwhile (failed and collected, or ended): what the write saw is all there is.
  if (!read) return roomOnlyView(room);
  if (joinedAfterEnd(read.room, read.doc, account)) {
    await p.sessionWrites.end(room.roomId, read.room.changeNumber);
    throw new RoomNotFoundError(room.roomId);
  }
  return sessionRoomView(read.room, read.doc, p.now(), account);
}
