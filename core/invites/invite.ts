import { DependencyUnavailableError } from '../errors';
import { cryptoRandom, jitteredBackoffMs, writeContentionBackoff } from '../infra/clock';
import { RoomNotFoundError } from '../rooms/errors';
import type { RoomStore, SessionRead } from '../rooms/room-store';
import { readableBy } from '../rooms/room-response';
import { sessionOverAt } from '../rooms/session-end';
import { InviteeBannedError } from './errors';
import { planInvite } from './invite-conditions';
import { inviteEntryWrite, type InviteStore } from './invite-store';

export interface InviteCommand {
  readonly roomId: string;
  readonly inviter: string;
  /** The accounts invited (1–10, checked at the edge). */
  readonly accounts: readonly string[];
}

export interface InviteDependencies {
  readonly rooms: Pick<RoomStore, 'read' | 'transactWrite'>;
  readonly invites: Pick<InviteStore, 'read'>;
  /** The inviter's gate (ban and rate limit) and the invitees' bans (core/abuse/guard.ts). */
  readonly abuse: {
    assertInviteAllowed(account: string, now: Date): Promise<void>;
    firstBanned(accounts: readonly string[], now: Date): Promise<string | undefined>;
  };
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Whom an invite reserved a slot for: each one's invite, as its live frame tells it. */
export interface InviteResult {
  /** The room after the invite (one read after the transaction). */
  readonly read: SessionRead;
  readonly invited: readonly string[];
  readonly invitedBy: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/**
 * Times the invite is judged and written again when its transaction was refused (something
 * changed since the read: a join, another invite, an invitee's list) or contended.
 */
const inviteAttempts = 5;

/**
 * `POST /v1/rooms/{roomId}/invites`: reserved members for the invited accounts and an entry in
 * each one's invites item, in ONE transaction (all or none):
 *
 *   inviter's gate (ban, rate limit) ∥ invitees' bans ─ refused ► 403 / 429, nothing written
 *   read the room ─► judge (core/invites/invite-conditions.ts) ─ nothing to do ► the room as is
 *   read each invitee's invites ─► its entry's write (≤ 20 live, expired ones pruned)
 *   TransactWriteItems [room update, invites items…] ─ Written ► read the room again
 *                                                     ├ Refused ► judge again from a new read
 *                                                     └ Contention ► wait (jittered), again
 *
 * Invites are not on the join path: the transaction costs the inviter a little latency only.
 *
 * @throws InviteeBannedError, InviteeFullError, InviterNotMemberError, InviterNotArbiterError,
 *   RoomFullError, RoomNotJoinableError, RoomNotFoundError, DependencyUnavailableError
 */
export async function inviteToRoom(command: InviteCommand, deps: InviteDependencies): Promise<InviteResult> {
  const accounts = [...new Set(command.accounts)];
  const [banned] = await Promise.all([
    deps.abuse.firstBanned(accounts, deps.now()),
    deps.abuse.assertInviteAllowed(command.inviter, deps.now()),
  ]);
  if (banned !== undefined) throw new InviteeBannedError(banned);
  for (let attempt = 0; attempt < inviteAttempts; attempt++) {
    const now = deps.now();
    const read = await readAs(command.roomId, command.inviter, deps, now);
    const plan = planInvite(read, command.inviter, accounts, now);
    if (!plan) return { read, invited: [], invitedBy: command.inviter, expiresAt: now.getTime() };
    const invite = { by: command.inviter, exp: plan.expiresAt };
    const books = await Promise.all(plan.invited.map((account) => deps.invites.read(account)));
    const entries = books.map((book) => inviteEntryWrite(book, command.roomId, invite, now.getTime()));
    const outcome = await deps.rooms.transactWrite(command.roomId, plan.write, entries);
    if (outcome.state === 'Written') {
      const after = await readAs(command.roomId, command.inviter, deps, deps.now());
      return { read: after, invited: plan.invited, invitedBy: command.inviter, expiresAt: plan.expiresAt };
    }
    if (outcome.state === 'Contention')
      await deps.sleep(jitteredBackoffMs(attempt, writeContentionBackoff, cryptoRandom));
  }
  throw new DependencyUnavailableError(
    `Room '${command.roomId}' kept changing while the invite was written; try again.`,
    {
      retryAfterS: 1,
      details: { roomId: command.roomId },
    },
  );
}

/** The room as the inviter may see it: gone, over, or private to a non-member is 404. */
async function readAs(roomId: string, account: string, deps: InviteDependencies, now: Date): Promise<SessionRead> {
  const read = await deps.rooms.read(roomId);
  if (!read || sessionOverAt(read.room, read.doc, now) || !readableBy(read.room, read.doc, account, now)) {
    throw new RoomNotFoundError(roomId);
  }
  return read;
}
