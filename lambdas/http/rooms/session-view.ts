import { RoomNotFoundError } from '../../../core/rooms/errors';
import type { Room } from '../../../core/rooms/model';
import { constantsOf, isLargeSession } from '../../../core/rooms/session-model';
import { roomOnlyView, sessionRoomView, type SessionRoomView } from '../../../core/rooms/room-response';
import { endIfOver } from '../../../core/rooms/session-end';
import type { Platform } from '../../dependencies';

/**
 * The room view a create or join answers with: the session document as it is now, so the
 * members (the caller among them) and the change number are those of one consistent read.
 * One GetItem after the write; the write's own answer does not carry the members.
 *
 * A join that landed in a session already over (empty for `sessionEmptyMs`) answers 404, as a
 * read before the join would have; the join being a write, the session ends now
 * (core/rooms/session-end.ts decides and ends it).
 */
export async function memberViewOf(p: Platform, room: Room, account: string): Promise<SessionRoomView> {
  // With the account: a large session's read then holds the caller's own member item.
  const read = await p.rooms.read(room.roomId, account);
  // Gone meanwhile (failed and collected, or ended): what the write saw is all there is.
  if (!read) return roomOnlyView(room);
  // The player routes hold no right to stop servers: the sweeper's orphan pass stops the
  // server of a room that is not live any more (docs/cost-bounds.md).
  const ends = { sessions: p.rooms, rooms: p.rooms, now: p.now };
  if (await endIfOver(read, p.now(), ends, account)) throw new RoomNotFoundError(room.roomId);
  return sessionRoomView(read.room, read.doc, p.now(), account);
}

/**
 * The room view a join answers with, built from what the claim's one write returned (state,
 * players, change number) and the cached constants: no read after the write, so no `members`
 * (a `GET` of the room is one read and has them). Read again: a session that can end while
 * empty (`sessionEmptyMs` set), because the claim cannot see that it had already ended; and a
 * large session, whose claim is a transaction and returns nothing, so only a read after it
 * knows the count and the change number (one strongly consistent GetItem of the room's item,
 * which holds no members: 1 RCU).
 */
export async function joinAnswerView(p: Platform, room: Room, account: string): Promise<SessionRoomView> {
  const constants = constantsOf(room);
  if (constants.timeouts.sessionEmptyMs === null && !isLargeSession(constants)) return roomOnlyView(room);
  const { members: _members, ...view } = await memberViewOf(p, room, account);
  return view;
}
