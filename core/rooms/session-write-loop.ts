import { DependencyUnavailableError } from '../errors';
import { RoomNotFoundError } from './errors';
import type { RoomStore, RoomWrite, SessionRead } from './room-store';
import { LargeSessionUnsupportedError } from './session-errors';
import { isLargeSession } from './session-model';

/** Writes refused because the room changed under them, judged again this often on the item as it stood. */
const maxWriteAttempts = 8;

/**
 * What one attempt at a session write comes to, judged on the room as read at `now`: the
 * answer without a write (nothing to change), or the one conditional write to send.
 */
export type WriteStep = { readonly answer: SessionRead } | { readonly write: RoomWrite };

/**
 * A session write by a member or the arbiter: read once, judge, one conditional write; a
 * refused write is judged again on the item as it stood (`ALL_OLD`), never by another read,
 * until it applies or the room stayed too busy. `judge` throws for what refuses the caller.
 *
 * @throws RoomNotFoundError (no such room), DependencyUnavailableError (too busy), and what `judge` throws
 */
export async function writeSessionUntilSettled(
  roomId: string,
  deps: {
    readonly sessions: { read(roomId: string): Promise<SessionRead | undefined> };
    readonly rooms: Pick<RoomStore, 'writeSession'>;
    readonly now: () => Date;
  },
  judge: (read: SessionRead, now: Date) => Promise<WriteStep>,
): Promise<SessionRead> {
  let read = await deps.sessions.read(roomId);
  // Member and arbiter writes judge the whole document; a large session's holds no members.
  if (read && isLargeSession(read.room.constants))
    throw new LargeSessionUnsupportedError(roomId, 'changing a member or the session through its document');
  for (let attempt = 0; attempt < maxWriteAttempts; attempt++) {
    if (!read) throw new RoomNotFoundError(roomId);
    const step = await judge(read, deps.now());
    if ('answer' in step) return step.answer;
    const result = await deps.rooms.writeSession(roomId, step.write);
    if (result.applied) return result.read;
    read = result.current;
  }
  throw new DependencyUnavailableError(`Room '${roomId}' is too busy to write right now; try again.`, {
    details: { roomId },
  });
}
