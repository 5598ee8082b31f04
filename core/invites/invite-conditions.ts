import { expiredMembers, isLiveMember, newMemberNumber, type DocMember, type StoredMember } from '../rooms/document';
import { RoomFullError, RoomNotJoinableError } from '../rooms/join-errors';
import { maxReclaimPerWrite } from '../rooms/join-conditions';
import { isLive } from '../rooms/model';
import { memberAsRead, roomConditions as is } from '../rooms/room-conditions';
import { allOf, type AttributePath, type Condition } from '../rooms/room-expression';
import type { RoomWrite, SessionRead } from '../rooms/room-store';
import { asksForArbiter, constantsOf, isLargeSession, type SessionTimeouts } from '../rooms/session-model';
import { InviterNotArbiterError, InviterNotMemberError, InvitesOffError, NoInvitingArbiterError } from './errors';

/**
 * The room's part of an invite: who may invite, who gets a reserved member, and the one
 * conditional write of the session document that does it (its conditions named in
 * core/rooms/room-conditions.ts; the room store sends it, in one transaction with the invited
 * accounts' invites items). Pure: a function of the room as read and `now`.
 */

/**
 * How long an invite holds its reservation when the template's reservations never expire
 * (`reservedMs` null): an invite nobody answers must not hold a slot for good.
 */
const unboundedInviteMs = 60 * 60 * 1000;

/** An invite's lifetime: the template's `reservedMs`, fixed when it is made. */
const inviteLifetimeMs = (timeouts: SessionTimeouts): number => timeouts.reservedMs ?? unboundedInviteMs;

export interface InvitePlan {
  readonly write: RoomWrite;
  /** The accounts the write reserves a member for (those holding a live slot already are left alone). */
  readonly invited: readonly string[];
  /** When their reservations (and invites) expire, epoch ms. */
  readonly expiresAt: number;
}

/**
 * Judges an invite on the room as read at `now`, and builds its write; undefined when every
 * invited account holds a live slot already (nothing to write).
 *
 *   IF roomIsLive AND joinability not closed (judged on the read; `unchangedSince` holds it)
 *      AND the inviter as read and unexpired [AND hostIs(inviter): a member arbiter invites alone]
 *      AND each invitee absent (or its expired entry as read) AND each reclaimed member as read
 *      AND playersBelow(maxPlayers − added + 1 + reclaimed)
 *
 * @throws RoomNotJoinableError, InvitesOffError, InviterNotMemberError, InviterNotArbiterError,
 *   NoInvitingArbiterError, RoomFullError
 */
export function planInvite(
  read: SessionRead,
  inviter: string,
  accounts: readonly string[],
  now: Date,
): InvitePlan | undefined {
  const { room, doc } = read;
  const at = now.getTime();
  assertInvitable(read);
  const writer = doc.members[inviter];
  if (!writer || !isLiveMember(writer, room, at)) throw new InviterNotMemberError(room.roomId);
  const host = inviterMustBe(read);
  if (host !== undefined && host !== inviter) throw new InviterNotArbiterError(room.roomId, host);
  const live = (account: string) => {
    const member = doc.members[account];
    return member !== undefined && isLiveMember(member, room, at);
  };
  const invited = [...new Set(accounts)].filter((account) => !live(account));
  if (invited.length === 0) return undefined;
  const stored = invited.filter((account) => doc.members[account] !== undefined);
  const added = invited.length - stored.length;
  const reclaim = slotsToReclaim(read, invited, added, at);
  const expiresAt = at + inviteLifetimeMs(constantsOf(room).timeouts);
  const member = (): StoredMember => ({ s: 0, t: at, e: expiresAt, i: inviter, n: newMemberNumber() });
  const condition: Condition = allOf(
    is.roomIsLive,
    is.unchangedSince(room.changeNumber),
    is.memberUnchanged(inviter, writer.t),
    is.memberNotExpired(inviter, at),
    ...(host === undefined ? [] : [is.hostIs(inviter)]),
    ...invited.map((account) => {
      const old = doc.members[account];
      return old ? is.memberUnchanged(account, old.t) : is.memberAbsent(account);
    }),
    ...reclaim.map(memberAsRead),
    is.playersBelow(room.maxPlayers - added + 1 + reclaim.length),
  );
  return {
    invited,
    expiresAt,
    write: {
      condition,
      change: {
        set: invited.map((account) => [['members', account], member()] as const),
        add: [[['players'], added - reclaim.length]],
        remove: reclaim.map((x): AttributePath => ['members', x.account]),
      },
      now,
    },
  };
}

/**
 * The one member who may invite, if only one may: a peer-hosted session's member arbiter
 * invites alone; a dedicated room's arbiter is its server, so there any live member may. A
 * peer-hosted session whose template asks for an arbiter takes no invite while none is
 * elected: anyone inviting then would go around the arbiter about to be elected.
 *
 * @throws NoInvitingArbiterError
 */
function inviterMustBe({ room }: SessionRead): string | undefined {
  const host = room.host?.account;
  if (host === undefined && room.hosting === 'peerHosted' && asksForArbiter(constantsOf(room))) {
    throw new NoInvitingArbiterError(room.roomId);
  }
  return host;
}

/** The room takes invites at all: live, not closed to joins, its members in its document. */
function assertInvitable({ room }: SessionRead): void {
  if (!isLive(room.state)) throw new RoomNotJoinableError(room.roomId, `the room is ${room.state}`);
  if (room.properties?.joinability === 'closed')
    throw new RoomNotJoinableError(room.roomId, 'its joinability is closed');
  if (isLargeSession(constantsOf(room))) {
    throw new InvitesOffError(room.roomId, 'a large session keeps its members out of its document');
  }
}

/**
 * The expired members the write removes so the invited fit (their own expired entries are
 * overwritten, not removed): none while they fit already; ROOM_FULL when even removing every
 * expired member would not make room.
 */
function slotsToReclaim(read: SessionRead, invited: readonly string[], added: number, now: number): DocMember[] {
  const { room, doc } = read;
  if (room.players + added <= room.maxPlayers) return [];
  const mine = new Set(invited);
  const expired = expiredMembers(doc, room, now)
    .filter((x) => !mine.has(x.account))
    .slice(0, maxReclaimPerWrite);
  if (room.players + added - expired.length > room.maxPlayers) throw new RoomFullError(room.roomId);
  return expired.slice(0, room.players + added - room.maxPlayers);
}
