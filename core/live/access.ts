import { isLiveMember } from '../rooms/document';
import { isLive } from '../rooms/model';
import type { SessionRead } from '../rooms/room-store';
import { sessionOverAt } from '../rooms/session-end';

/** Why a subscription is refused: the error frame's code. */
export type SubscribeRefusal = 'FORBIDDEN' | 'NOT_FOUND';

/**
 * Who may follow a room at `now`: its live members, and admins. Anyone else is refused
 * FORBIDDEN, whether the room exists or not, so a socket tells an outsider nothing about
 * rooms it may not read; a room that is over is NOT_FOUND to those who could have followed it.
 */
export function subscribeAccess(
  read: SessionRead | undefined,
  caller: { readonly account: string; readonly admin: boolean },
  now: Date,
): 'member' | 'admin' | SubscribeRefusal {
  if (!read) return caller.admin ? 'NOT_FOUND' : 'FORBIDDEN';
  const member = read.doc.members[caller.account];
  const isMember = member !== undefined && isLiveMember(member, read.room, now.getTime());
  if (!isMember && !caller.admin) return 'FORBIDDEN';
  if (!isLive(read.room.state) || sessionOverAt(read.room, read.doc, now)) return 'NOT_FOUND';
  return isMember ? 'member' : 'admin';
}
