import { RoomNotFoundError } from './errors';
import { expiredMembers, isLiveMember, memberAt, type StoredMember } from './document';
import { SessionMembersOnlyError } from './session-errors';
import { assertIfMatch } from './if-match';
import { transitionMember } from './member-transitions';
import { constantsOf, type MemberSettableState, type SessionJoinability } from './session-model';
import { memberUpdate, roomPropertiesUpdate, type PatchBase } from './patch-conditions';
import { hostingOf, readableBy } from './room-response';
import { endIfOver, sessionOverAt } from './session-end';
import { writeSessionUntilSettled } from './session-write-loop';
import { writerEpoch } from './host';
import type { RoomStore, RoomWrite, SessionRead } from './room-store';

export interface SessionDependencies {
  readonly sessions: { read(roomId: string, account?: string): Promise<SessionRead | undefined> };
  /** The session's writes go through the room aggregate's one store. */
  readonly rooms: Pick<RoomStore, 'writeSession' | 'endSession'>;
  readonly now: () => Date;
  /** Stops the game server of a dedicated session that ended because it stayed empty. */
  readonly stopServer?: (taskId: string) => Promise<void>;
}

/**
 * `GET /v1/rooms/{roomId}`: one read, judged at `now`, and no write. A session over by
 * `sessionEmptyMs` answers 404 (core/rooms/session-end.ts); a `private` one answers 404 to
 * anyone not a live member.
 *
 * @throws RoomNotFoundError
 */
export async function readSessionAs(roomId: string, account: string, deps: SessionDependencies): Promise<SessionRead> {
  // A large session's read holds the caller's own member, and only it.
  const read = await deps.sessions.read(roomId, account);
  const now = deps.now();
  // A read writes nothing: a session over by now is gone to it; a write or the sweeper ends it.
  if (!read || sessionOverAt(read.room, read.doc, now) || !readableBy(read.room, read.doc, account, now)) {
    throw new RoomNotFoundError(roomId);
  }
  return read;
}

/**
 * An operator's read: any session, whatever its visibility; one that is over (empty past its
 * `sessionEmptyMs`) is gone to operators as to everyone.
 */
export async function readSessionAsAdmin(roomId: string, deps: SessionDependencies): Promise<SessionRead> {
  const read = await deps.sessions.read(roomId);
  if (!read || sessionOverAt(read.room, read.doc, deps.now())) throw new RoomNotFoundError(roomId);
  return read;
}

interface WriteCommand {
  readonly roomId: string;
  readonly account: string;
  /** `If-Match`, parsed (core/rooms/if-match.ts); undefined: no precondition. */
  readonly ifMatch?: number;
  /** `X-Host-Epoch`, parsed (core/rooms/host-epoch.ts): the write holds only for that epoch's host. */
  readonly hostEpoch?: number;
}

/**
 * One member's write: read, judge (over? stale? a live member? the host, at the epoch it
 * named?), one conditional write.
 * A refused write is judged again on the item as it stood (`ALL_OLD`), never by another read:
 * with `If-Match` a changed number is 412 (the condition holds it, so of many writers with
 * the same number exactly one wins); without, the write is rebuilt and sent again.
 */
async function writeAsMember(
  command: WriteCommand,
  build: (read: SessionRead, writer: StoredMember, base: PatchBase) => RoomWrite,
  deps: SessionDependencies,
): Promise<SessionRead> {
  return writeSessionUntilSettled(command.roomId, deps, async (read, now) => {
    if (await endIfOver(read, now, deps)) throw new RoomNotFoundError(command.roomId);
    assertIfMatch(command.roomId, command.ifMatch, read.room.changeNumber);
    const writer = read.doc.members[command.account];
    if (!writer || !isLiveMember(writer, read.room, now.getTime())) throw new SessionMembersOnlyError(command.roomId);
    // Judged on every attempt: an election between two attempts makes the named epoch stale.
    const hostEpoch = writerEpoch(read.room, command.account, command.hostEpoch);
    const base: PatchBase = {
      account: command.account,
      memberT: writer.t,
      ...(command.ifMatch === undefined ? {} : { ifMatch: command.ifMatch }),
      ...(hostEpoch === undefined ? {} : { hostEpoch }),
      expired: expiredMembers(read.doc, read.room, now.getTime()),
      now,
    };
    return { write: build(read, writer, base) };
  });
}

/** `PATCH /v1/rooms/{roomId}`: a live member writes the room's properties. */
export function patchRoomProperties(
  command: WriteCommand & {
    readonly properties: { readonly joinability?: SessionJoinability; readonly custom?: Record<string, unknown> };
  },
  deps: SessionDependencies,
): Promise<SessionRead> {
  return writeAsMember(
    command,
    (read, _writer, base) => roomPropertiesUpdate(base, command.properties, read.room.properties !== undefined),
    deps,
  );
}

/**
 * `PATCH /v1/rooms/{roomId}/members/me`: a live member changes its own state (the rules of
 * core/rooms/member-transitions.ts) or its own properties, nobody else's.
 *
 * @throws MemberTransitionInvalidError (400 naming body.state)
 */
export function patchOwnMember(
  command: WriteCommand & { readonly state?: MemberSettableState; readonly custom?: Record<string, unknown> },
  deps: SessionDependencies,
): Promise<SessionRead> {
  return writeAsMember(
    command,
    (read, writer, base) => {
      // As the rules see it now: a member without a socket for `disconnectedMs` is inactive.
      const seen = memberAt(writer, read.room, base.now.getTime());
      const member =
        command.state === undefined
          ? undefined
          : transitionMember(
              seen,
              command.state,
              base.now.getTime(),
              constantsOf(read.room).timeouts,
              hostingOf(read.room),
            );
      // Written when it changes, or when it ends a disconnect the stored member still carries.
      const writes = member !== undefined && (member !== writer || writer.d !== undefined);
      return memberUpdate(base, {
        ...(writes ? { member } : {}),
        ...(command.custom === undefined ? {} : { custom: command.custom }),
      });
    },
    deps,
  );
}
