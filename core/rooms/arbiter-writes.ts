import * as z from 'zod';
import { PlatformError } from '../errors';
import { docMember, isLiveMember, memberAt, memberStateCode, type StoredMember } from './document';
import { RoomNotFoundError } from './errors';
import { hostWriteOf } from './host';
import { StaleEpochError } from './host-epoch';
import { removeMembersWrite } from './member-writes';
import { isLive, type RoomHost } from './model';
import { roomConditions as is } from './room-conditions';
import { absent, allOf, anyOf, exists, mergeChanges, type Change, type Condition } from './room-expression';
import type { RoomStore, RoomWrite, SessionRead } from './room-store';
import { SessionMembersOnlyError } from './session-errors';
import { endIfOver, type SessionEndDependencies } from './session-end';
import { writeSessionUntilSettled } from './session-write-loop';

/**
 * The arbiter's powers over a session (docs/api.md "Live sessions"), and a member's report
 * that the arbiter is unreachable. Every arbiter write is ONE conditional write fenced by the
 * epoch it names: `host.e = :epoch AND host.a = :caller`, so whatever a former arbiter
 * believes, once an election moved the epoch on, none of its writes applies. Refusals are
 * judged on the item as it stood (`ALL_OLD`), never by another read.
 */

export interface ArbiterDependencies extends SessionEndDependencies {
  readonly sessions: Pick<RoomStore, 'read'>;
  readonly rooms: Pick<RoomStore, 'writeSession' | 'endSession'>;
}

export interface ArbiterCommand {
  readonly roomId: string;
  readonly account: string;
  /** `X-Host-Epoch`. */
  readonly epoch: number;
}

/**
 * The arbiter, as read: the caller is the room's member arbiter at `epoch`, and a live member.
 *
 * @throws StaleEpochError, SessionMembersOnlyError
 */
function arbiterOf(read: SessionRead, command: ArbiterCommand, now: number): StoredMember {
  const host = read.room.host;
  if (!host || host.epoch !== command.epoch || host.account !== command.account) {
    throw new StaleEpochError(command.roomId, host?.epoch);
  }
  const member = read.doc.members[command.account];
  if (!member || !isLiveMember(member, read.room, now)) throw new SessionMembersOnlyError(command.roomId);
  return member;
}

/**
 * What every arbiter write holds and does besides its own change: the epoch and the caller as
 * arbiter, the caller's member as read; the arbiter is heard (`host.s = now`) and the
 * unreachable reports of its epoch are void (`host.r` removed).
 *
 *   IF roomIsLive AND hostEpochIs(epoch) AND hostIs(caller) AND memberUnchanged(caller)
 */
function arbiterWrite(command: ArbiterCommand, arbiter: StoredMember, now: Date, own: RoomWrite): RoomWrite {
  const heard = hostWriteOf(command.account, command.epoch, now);
  const fence: Condition = allOf(is.roomIsLive, heard.condition, is.memberUnchanged(command.account, arbiter.t));
  return {
    condition: own.condition ? allOf(fence, own.condition) : fence,
    change: mergeChanges(own.change, heard.change),
    now,
  };
}

/**
 * Read, judge the caller as arbiter at `now`, one conditional write; a refusal is judged again
 * on the item as it stood: an epoch moved on is 409 STALE_EPOCH at once.
 *
 * @throws RoomNotFoundError, StaleEpochError, SessionMembersOnlyError
 */
export function writeAsArbiter(
  command: ArbiterCommand,
  build: (read: SessionRead, now: Date) => RoomWrite,
  deps: ArbiterDependencies,
): Promise<SessionRead> {
  return writeSessionUntilSettled(command.roomId, deps, async (read, now) => {
    await assertLive(read, now, command.roomId, deps);
    const arbiter = arbiterOf(read, command, now.getTime());
    return { write: arbiterWrite(command, arbiter, now, build(read, now)) };
  });
}

/** The room is live and its session not over at `now` (a session over ends here). @throws RoomNotFoundError */
async function assertLive(read: SessionRead, now: Date, roomId: string, deps: ArbiterDependencies): Promise<void> {
  if (!isLive(read.room.state) || (await endIfOver(read, now, deps))) throw new RoomNotFoundError(roomId);
}

/** No member of that account to remove (never joined, or gone already). */
class MemberNotFoundError extends PlatformError {
  override readonly name = 'MemberNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(roomId: string, account: string) {
    super(`Room '${roomId}' has no member '${account}' to remove.`, { details: { roomId, account } });
  }
}

/**
 * `DELETE /v1/rooms/{roomId}/members/{account}` (`X-Host-Epoch`): the arbiter removes a member
 * it cannot reach. The member goes as a leave takes it (its slot frees, its key stops
 * working), only while it is as the arbiter's read saw it; its subscriptions end with the tap.
 * Removing itself is a leave (`DELETE …/members/me`), not an arbiter's power.
 *
 * @throws RoomNotFoundError, MemberNotFoundError, StaleEpochError, SessionMembersOnlyError
 */
export function removeMemberAsArbiter(
  command: ArbiterCommand & { readonly member: string },
  deps: ArbiterDependencies,
): Promise<SessionRead> {
  return writeAsArbiter(
    command,
    (read, now) => {
      const target = read.doc.members[command.member];
      if (!target || command.member === command.account) throw new MemberNotFoundError(command.roomId, command.member);
      const emptySince = Math.max(read.room.emptySince ?? 0, now.getTime());
      return removeMembersWrite([docMember(command.member, target)], now, emptySince);
    },
    deps,
  );
}

/**
 * Whether `account`'s report still counts: made at this epoch after the arbiter was last
 * heard (a report older than the arbiter's last write is void).
 */
const reportCounts = (host: RoomHost, account: string): boolean => (host.reports?.[account] ?? -1) > host.seenAt;

export const hostUnreachableRequestSchema = z
  .strictObject({
    epoch: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .describe('The host epoch the caller last saw; not current: 409 STALE_EPOCH.'),
  })
  .meta({ id: 'HostUnreachableRequest' });

/**
 * `POST /v1/rooms/{roomId}/host/unreachable` `{ epoch }`: a live, active member other than
 * the arbiter reports it cannot reach it. Recorded in `host.r` at this epoch only; the
 * election (core/rooms/host.ts) counts a majority of reports toward the arbiter's silence. It
 * never elects. A report that already counts is not written again (no change, no tap).
 *
 * @throws RoomNotFoundError, StaleEpochError, SessionMembersOnlyError
 */
export function reportHostUnreachable(command: ArbiterCommand, deps: ArbiterDependencies): Promise<SessionRead> {
  return writeSessionUntilSettled(command.roomId, deps, async (read, now) => {
    await assertLive(read, now, command.roomId, deps);
    const reporter = reporterOf(read, command, now.getTime());
    const host = read.room.host as RoomHost;
    if (reportCounts(host, command.account)) return { answer: read };
    return { write: reportWrite(command, reporter, host, now) };
  });
}

/**
 * The reporter, as read: the epoch is current (else 409 STALE_EPOCH), the caller is a live,
 * active member at `now` and not the arbiter (else 403).
 */
function reporterOf(read: SessionRead, command: ArbiterCommand, now: number): StoredMember {
  const host = read.room.host;
  if (!host || host.epoch !== command.epoch) throw new StaleEpochError(command.roomId, host?.epoch);
  const member = read.doc.members[command.account];
  const active =
    member !== undefined &&
    isLiveMember(member, read.room, now) &&
    memberAt(member, read.room, now).s === memberStateCode('active');
  if (!active || host.account === command.account) throw new ReportRefusedError(command.roomId);
  return member;
}

/**
 * One report: `host.r.<caller> = now` (the whole map when the item holds none yet).
 *
 *   IF roomIsLive AND hostEpochIs(epoch) AND memberUnchanged(caller) AND host.r stored | absent (as read)
 */
function reportWrite(command: ArbiterCommand, reporter: StoredMember, host: RoomHost, now: Date): RoomWrite {
  const stored = host.reports !== undefined;
  const fence = allOf(
    is.roomIsLive,
    is.hostEpochIs(command.epoch),
    is.memberUnchanged(command.account, reporter.t),
    // An empty stored map reads as none (core/rooms/model.ts `hostOf`): replaced whole, like a missing one.
    stored ? exists('host', 'r') : anyOf(absent('host', 'r'), { kind: 'sizeAtMost', path: ['host', 'r'], max: 0 }),
  );
  const change: Change = stored
    ? { set: [[['host', 'r', command.account], now.getTime()]] }
    : { set: [[['host', 'r'], { [command.account]: now.getTime() }]] };
  return { condition: fence, change, now };
}

/** Only live, active members other than the arbiter report it unreachable. */
class ReportRefusedError extends PlatformError {
  override readonly name = 'ReportRefusedError';
  readonly code = 'FORBIDDEN';
  constructor(roomId: string) {
    super(`Only active members of room ${roomId} other than its arbiter may report it unreachable.`, {
      details: { roomId },
    });
  }
}
