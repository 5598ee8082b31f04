import { expiryOf, liveCount, sessionExpired, type SessionDocument } from './document';
import type { Room } from './model';
import type { RoomStore, SessionRead } from './room-store';
import { constantsOf, isLargeSession } from './session-model';

/**
 * When a session ends because it stayed empty, decided here and nowhere else. Like member
 * timeouts, it is judged lazily: a read at `now` treats an over session as gone (404) and
 * writes nothing; a write path (a PATCH, a join's answer) or the sweeper ends it for good
 * (`endIfOver`).
 */

/**
 * Since when (epoch ms) the session has had no live member at `now`, or undefined while it
 * has one. The latest of: the write that removed the last member (`emptySince`) and the
 * expiry of every member still stored but expired (lazily: nothing wrote their departure).
 * A session that never lost a member counts from `baseline` (default: its start).
 */
export function emptySinceOf(
  room: Room,
  doc: SessionDocument,
  now: Date,
  /** null: a session that never lost a member was never empty. */
  baseline: number | null = Date.parse(room.readyAt ?? room.createdAt),
): number | undefined {
  // A large session's document holds no members: its count says whether anyone holds a slot
  // (a reservation that expired still counts until a join or its holder removes it).
  if (isLargeSession(room.constants)) return room.players > 0 ? undefined : (room.emptySince ?? baseline ?? undefined);
  if (liveCount(doc, room, now.getTime()) > 0) return undefined;
  const departures = Object.values(doc.members).map((member) => expiryOf(member, room) ?? 0);
  const candidates = [...(room.emptySince === undefined ? [] : [room.emptySince]), ...departures];
  if (candidates.length > 0) return Math.max(...candidates);
  return baseline ?? undefined;
}

/** A session empty for `sessionEmptyMs` is over: reads answer 404, the next one deletes it. */
export function sessionOverAt(room: Room, doc: SessionDocument, now: Date): boolean {
  return sessionExpired(emptySinceOf(room, doc, now), now.getTime(), constantsOf(room).timeouts);
}

/**
 * Whether `account`'s own claim landed in a session that was already over (empty for
 * `sessionEmptyMs` before the claim, which cannot see that): the join must not revive it.
 * A session that never lost a member (its creator's claim) was never over.
 */
export function joinedAfterEnd(room: Room, doc: SessionDocument, account: string): boolean {
  const joiner = doc.members[account];
  if (!joiner) return false;
  const { [account]: _joiner, ...others } = doc.members;
  const at = new Date(joiner.t);
  const since = emptySinceOf(room, { ...doc, members: others }, at, null);
  return sessionExpired(since, at.getTime(), constantsOf(room).timeouts);
}

export interface SessionEndDependencies {
  readonly sessions: Pick<RoomStore, 'read'>;
  readonly rooms: Pick<RoomStore, 'endSession'>;
  readonly now: () => Date;
  /** Stops the game server of a dedicated session that ended because it stayed empty. */
  readonly stopServer?: (taskId: string) => Promise<void>;
}

/**
 * Ends a session that has been empty for its `sessionEmptyMs` (lazily, by whoever sees it
 * first): deletes it IF nothing changed since the read, and stops its server if it has one.
 * Only write paths and the sweeper call it; a read judges `sessionOverAt` and writes nothing.
 * Answers whether the session is over (deleted by this call or by another).
 */
export async function endIfOver(
  read: SessionRead,
  now: Date,
  deps: SessionEndDependencies,
  /** A join's account: judged without its own claim, which cannot see that the session had ended. */
  joiner?: string,
): Promise<boolean> {
  const over =
    joiner === undefined ? sessionOverAt(read.room, read.doc, now) : joinedAfterEnd(read.room, read.doc, joiner);
  if (!over) return false;
  const ended = await deps.rooms.endSession(read.room.roomId, read.room.changeNumber);
  if (ended && read.room.placement && deps.stopServer) await deps.stopServer(read.room.placement.taskId);
  if (ended) return true;
  // Something changed it meanwhile (a join): judge again on what it is now.
  const again = await deps.sessions.read(read.room.roomId);
  return again === undefined || sessionOverAt(again.room, again.doc, deps.now());
}
