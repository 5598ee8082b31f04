import { isLiveMember, type SessionDocument, type StoredMember } from './document';
import { storedHost, type Room, type RoomHost } from './model';
import { roomConditions as is } from './room-conditions';
import type { Replacement, SavedState } from './room-store';
import { absent, allOf } from './room-expression';
import type { RoomWrite, SessionRead } from './room-store';
import { constantsOf, type SessionTimeouts } from './session-model';

/**
 * The pure rules of a dedicated room that outlives its game server (docs/game-servers.md
 * "Replacement"): whether a room whose server died is replaced rather than failed, and the
 * one conditional write that moves it to its replacement. The use case that reads, writes and
 * spawns is core/rooms/server-replacement.ts.
 */

/** A room that may get a replacement server: dedicated, `migrateHost`, ready, with an arbiter epoch. */
export type ReplaceableRoom = Room & { readonly host: RoomHost };

/**
 * How many servers a room may lose and still be replaced. A game server may be hostile (a
 * player who took it over can crash it on purpose, again and again), and every replacement is
 * a task start the platform pays for; a room that lost this many servers most likely kills
 * the next one too. Past it, the room fails as one without `migrateHost` does.
 */
export const maxServerReplacements = 3;

/**
 * Only a ready room is replaced: a room still spawning has no state worth keeping and its
 * spawn timeout fails it as any other (so a replacement that never comes up ends the room
 * instead of being replaced for ever), and a standby server is nobody's room yet. The epoch
 * counts the servers the room had: the write's epoch condition holds this judgement.
 */
export function replaceable(room: Room): room is ReplaceableRoom {
  return (
    room.state === 'ready' &&
    room.hosting !== 'peerHosted' &&
    room.standby !== true &&
    room.host !== undefined &&
    room.host.epoch <= maxServerReplacements &&
    constantsOf(room).migrateHost === true
  );
}

/**
 * Whether a death report is about a server older than the room's current one: the server of
 * `epoch` was replaced already, and its end says nothing about the room. A report without an
 * epoch comes from a sidecar started before epochs were carried: epoch 1.
 */
export function isStaleReport(room: Pick<Room, 'host'>, epoch: number | undefined): boolean {
  return room.host !== undefined && (epoch ?? 1) < room.host.epoch;
}

/**
 * A member's seat for the replacement: a pending reservation (its clock starts at the
 * replacement's `inited`) WITHOUT a key: the old server's keys mean nothing to the new one,
 * and the member gets a fresh key by joining again (core/rooms/join.ts re-keys a member).
 * Kept: the member's scopes (`c`), its properties (`q`), its member number (`n`) and its
 * client's build (`v`), which the replacement's `joined` still checks.
 */
function reseated(member: StoredMember, now: number, timeouts: SessionTimeouts): StoredMember {
  const own = member as StoredMember & { readonly n?: number };
  return {
    s: 0,
    t: now,
    ...(timeouts.reservedMs === null ? {} : { p: timeouts.reservedMs }),
    ...(own.c && own.c.length > 0 ? { c: own.c } : {}),
    ...(own.q === undefined ? {} : { q: own.q }),
    ...(own.n === undefined ? {} : { n: own.n }),
    ...(own.v === undefined ? {} : { v: own.v }),
  };
}

/** Every member live at `now`, reseated; expired ones are left out (their slots are free). */
function reseatedMembers(doc: SessionDocument, room: Room, now: number): Record<string, StoredMember> {
  const timeouts = constantsOf(room).timeouts;
  return Object.fromEntries(
    Object.entries(doc.members)
      .filter(([, member]) => isLiveMember(member, room, now))
      .map(([account, member]) => [account, reseated(member, now, timeouts)]),
  );
}

/**
 * The epoch of the room's current game server: the arbiter epoch of a dedicated room whose
 * server is its arbiter (its replacements count up from 1), else 1 (a room's first server, or
 * one that never had a replacement). Its sidecar's queue is named after it
 * (core/protocol/queue-names.ts).
 */
export function serverEpochOf(room: Pick<Room, 'host'>): number {
  return room.host !== undefined && room.host.account === undefined ? room.host.epoch : 1;
}

/**
 * The room, as read, moved to its replacement server in ONE conditional write:
 *
 *   IF roomIsReady AND hostEpochIs(e) AND unchangedSince(changeNumber)
 *   SET state = spawning, host = { e: e + 1, s: now }, spawnDeadline, members = reseated, players,
 *       deployment [, protocolCheck = false]
 *   REMOVE placement, address, readyAt, initedBy, lastHeartbeatAt, protocol [, protocolCheck]
 *
 * The replacement is started from the configuration as it is now, which may start another
 * build than the dead server's: the room takes that configuration's deployment and check, and
 * forgets the dead server's build until the new one reports its own in `inited`.
 *
 * The epoch condition makes it happen once per dead server, whoever saw the death first (the
 * sidecar's report, the local fleet, the sweeper): the others' writes are refused. The
 * change-number condition keeps a join or a member's write that landed since the read from
 * being overwritten with the members map: the caller reads again and retries. Members keep
 * their slots (`players` counts exactly the members written), so nobody new can take one.
 */
export function replacementWrite(read: SessionRead, room: ReplaceableRoom, replacement: Replacement): RoomWrite {
  const now = replacement.now.getTime();
  const members = reseatedMembers(read.doc, room, now);
  const players = Object.keys(members).length;
  return {
    condition: allOf(is.roomIsReady, is.hostEpochIs(room.host.epoch), is.unchangedSince(room.changeNumber)),
    change: {
      set: [
        [['state'], 'spawning'],
        [['spawnDeadline'], replacement.spawnDeadline.toISOString()],
        [['host'], storedHost({ epoch: room.host.epoch + 1, seenAt: now })],
        [['members'], members],
        [['players'], players],
        ...(players === 0 && room.players > 0 ? [[['emptySince'], now] as const] : []),
        [['deployment'], replacement.deployment],
        ...(replacement.protocolCheck ? [] : [[['protocolCheck'], false] as const]),
      ],
      remove: [
        ['placement'],
        ['address'],
        ['readyAt'],
        ['initedBy'],
        ['lastHeartbeatAt'],
        ['protocol'],
        ...(replacement.protocolCheck ? [['protocolCheck']] : []),
      ],
    },
    now: replacement.now,
  };
}

/** The state a replacement server starts from (its `inited` answer's `restore`), if any was saved. */
export function restoreOf(
  saved: SavedState | undefined,
): { readonly epoch: number; readonly state: unknown } | undefined {
  return saved && { epoch: saved.epoch, state: JSON.parse(saved.state) as unknown };
}

/**
 * A dedicated room's game server saves its state (`save_state`):
 *
 *   IF roomIsReady AND hostEpochIs(epoch) AND the arbiter is the server (no host.a)
 *   SET saved = { e: epoch, at: now, d: <JSON text> }, host.s = now
 *
 * A replaced server's epoch no longer matches: its save is refused and changes nothing.
 */
export function serverSaveWrite(epoch: number, text: string, now: Date): RoomWrite {
  return {
    condition: allOf(is.roomIsReady, is.hostEpochIs(epoch), absent('host', 'a')),
    change: {
      set: [
        [['saved'], { e: epoch, at: now.getTime(), d: text }],
        [['host', 's'], now.getTime()],
      ],
    },
    now,
    // No reader sees a server's saved state (only its replacement's `inited` answer holds it):
    // no change number, no tap, so a game saving often moves nothing players compare.
    quiet: true,
  };
}
