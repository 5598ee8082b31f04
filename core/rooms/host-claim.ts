import { DependencyUnavailableError } from '../errors';
import { RoomNotFoundError } from './errors';
import { isLiveMember } from './document';
import { judgeClaim } from './host';
import { isLive } from './model';
import type { SessionDependencies } from './patch';
import { readableBy } from './room-response';
import type { SessionRead } from './room-store';
import { SessionMembersOnlyError } from './session-errors';
import { endIfOver } from './session-end';
import { LargeSessionUnsupportedError } from './session-errors';
import { isLargeSession } from './session-model';

/** A claim refused because the room changed under it is judged again this often on the item as it stood. */
const maxClaimAttempts = 4;

/**
 * `POST /v1/rooms/{roomId}/host` `{ epoch }`: the caller claims the arbiter's place
 * (core/rooms/host.ts judges; one conditional write decides). One read, then the write; a
 * refused write is judged again on the item as it stood (`ALL_OLD`), never by another read,
 * so of many claimants of one epoch exactly one wins and the others learn why (409
 * STALE_EPOCH with the epoch now current, or 409 HOST_ALIVE). Without `migrateHost`, a claim
 * on a lost host ends the session and answers 404: the session is over.
 *
 * @throws RoomNotFoundError, SessionMembersOnlyError, HostClaimForbiddenError, StaleEpochError, HostAliveError
 */
export async function claimHost(
  command: { readonly roomId: string; readonly account: string; readonly epoch: number },
  deps: SessionDependencies,
): Promise<SessionRead> {
  let read = await deps.sessions.read(command.roomId);
  if (read && isLargeSession(read.room.constants))
    throw new LargeSessionUnsupportedError(command.roomId, 'a host claim');
  for (let attempt = 0; attempt < maxClaimAttempts; attempt++) {
    const now = deps.now();
    if (!read || !isLive(read.room.state) || (await endIfOver(read, now, deps))) {
      throw new RoomNotFoundError(command.roomId);
    }
    if (!readableBy(read.room, read.doc, command.account, now)) throw new RoomNotFoundError(command.roomId);
    const member = read.doc.members[command.account];
    if (!member || !isLiveMember(member, read.room, now.getTime())) throw new SessionMembersOnlyError(command.roomId);
    const judged = judgeClaim(read, command.account, command.epoch, now);
    if (judged.kind === 'already') return read;
    if (judged.kind === 'refused') throw judged.error;
    const result = await deps.rooms.writeSession(command.roomId, judged.write);
    if (result.applied && judged.ends) throw new RoomNotFoundError(command.roomId);
    if (result.applied) return result.read;
    read = result.current;
  }
  throw new DependencyUnavailableError(`Room '${command.roomId}' is too busy to claim right now; try again.`, {
    details: { roomId: command.roomId },
  });
}
