import { DependencyUnavailableError } from '../errors';
import { RoomNotFoundError } from '../rooms/errors';
import { expiredMembers, isLiveMember, type StoredMember } from './document';
import { SessionMembersOnlyError } from './errors';
import { assertIfMatch } from './if-match';
import { transitionMember } from './member-transitions';
import { constantsOf, type MemberSettableState, type SessionJoinability } from './model';
import { memberUpdate, roomPropertiesUpdate, type PatchBase } from './patch-conditions';
import { hostingOf, readableBy, sessionOverAt } from './room-response';
import type { RoomStore, RoomWrite } from '../rooms/room-store';
import type { SessionRead } from './store';

export interface SessionDependencies {
  readonly sessions: { read(roomId: string): Promise<SessionRead | undefined> };
  /** The session's writes go through the room aggregate's one store. */
  readonly rooms: Pick<RoomStore, 'writeSession' | 'endSession'>;
  readonly now: () => Date;
  /** Stops the game server of a dedicated session that ended because it stayed empty. */
  readonly stopServer?: (taskId: string) => Promise<void>;
}

/** Writes refused because the room changed under them, retried on the item as it stood. */
const maxWriteAttempts = 8;

/**
 * Ends a session that has been empty for its `sessionEmptyMs` (lazily, by whoever sees it
 * first): deletes it IF nothing changed since the read, and stops its server if it has one.
 * Answers whether the session is over (deleted by this call or by another).
 */
export async function endIfOver(read: SessionRead, now: Date, deps: SessionDependencies): Promise<boolean> {
  if (!sessionOverAt(read.room, read.doc, now)) return false;
  const ended = await deps.rooms.endSession(read.room.roomId, read.room.changeNumber);
  if (ended && read.room.placement && deps.stopServer) await deps.stopServer(read.room.placement.taskId);
  if (ended) return true;
  // Something changed it meanwhile (a join): judge again on what it is now.
  const again = await deps.sessions.read(read.room.roomId);
  return again === undefined || sessionOverAt(again.room, again.doc, deps.now());
}

/**
 * `GET /v1/rooms/{roomId}`: one read, judged at `now`. A session over by `sessionEmptyMs`
 * is deleted and answers 404; a `private` one answers 404 to anyone not a live member.
 *
 * @throws RoomNotFoundError
 */
export async function readSessionAs(roomId: string, account: string, deps: SessionDependencies): Promise<SessionRead> {
  const read = await deps.sessions.read(roomId);
  const now = deps.now();
  if (!read || (await endIfOver(read, now, deps)) || !readableBy(read.room, read.doc, account, now)) {
    throw new RoomNotFoundError(roomId);
  }
  return read;
}

interface WriteCommand {
  readonly roomId: string;
  readonly account: string;
  /** `If-Match`, parsed (core/sessions/if-match.ts); undefined: no precondition. */
  readonly ifMatch?: number;
}

/**
 * One member's write: read, judge (over? stale? a live member?), one conditional write.
 * A refused write is judged again on the item as it stood (`ALL_OLD`), never by another read:
 * with `If-Match` a changed number is 412 (the condition holds it, so of many writers with
 * the same number exactly one wins); without, the write is rebuilt and sent again.
 */
async function writeAsMember(
  command: WriteCommand,
  build: (read: SessionRead, writer: StoredMember, base: PatchBase) => RoomWrite,
  deps: SessionDependencies,
): Promise<SessionRead> {
  let read = await deps.sessions.read(command.roomId);
  for (let attempt = 0; attempt < maxWriteAttempts; attempt++) {
    const now = deps.now();
    if (!read || (await endIfOver(read, now, deps))) throw new RoomNotFoundError(command.roomId);
    assertIfMatch(command.roomId, command.ifMatch, read.room.changeNumber);
    const writer = read.doc.members[command.account];
    if (!writer || !isLiveMember(writer, read.room, now.getTime())) throw new SessionMembersOnlyError(command.roomId);
    const base: PatchBase = {
      account: command.account,
      memberT: writer.t,
      ...(command.ifMatch === undefined ? {} : { ifMatch: command.ifMatch }),
      expired: expiredMembers(read.doc, read.room, now.getTime()),
      now,
    };
    const result = await deps.rooms.writeSession(command.roomId, build(read, writer, base));
    if (result.applied) return result.read;
    read = result.current;
  }
  throw new DependencyUnavailableError(`Room '${command.roomId}' is too busy to write right now; try again.`, {
    details: { roomId: command.roomId },
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
 * core/sessions/member-transitions.ts) or its own properties, nobody else's.
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
      const member =
        command.state === undefined
          ? undefined
          : transitionMember(
              writer,
              command.state,
              base.now.getTime(),
              constantsOf(read.room).timeouts,
              hostingOf(read.room),
            );
      return memberUpdate(base, {
        ...(member === undefined || member === writer ? {} : { member }),
        ...(command.custom === undefined ? {} : { custom: command.custom }),
      });
    },
    deps,
  );
}
