import { PlatformError } from '../errors';
import { isLiveMember, memberAt, memberStateCode, type SessionDocument, type StoredMember } from './document';
import { StaleEpochError } from './host-epoch';
import { storedHost, type Room, type RoomHost } from './model';
import { roomConditions as is } from './room-conditions';
import { absent, allOf, equals, type Change, type Condition } from './room-expression';
import type { RoomWrite, SessionRead } from './room-store';
import { asksForArbiter, constantsOf, hostRulesOf } from './session-model';

/**
 * The session's arbiter (docs/api.md "Live sessions"): who may become it, and when. Pure:
 * every rule takes the room as read and `now`; the one conditional write each judgement
 * builds is what decides, so two candidates that both judged themselves right cannot both win
 * (`host.e` is the fencing token every arbiter write names).
 *
 * Any live, active member may claim once the host has been silent past T (`hostTimeoutMs`,
 * halved by a majority of unreachable reports): before that, 409 HOST_ALIVE with the wait.
 * Which member should claim is deterministic, so candidates need not race: the preferred
 * successor (`host.next`, the lowest platform-drawn member number) claims at T, the others
 * later (docs/live.md, the client loop); but the write decides, so if several claim at once
 * exactly one wins. A host that is no longer a live member counts as silent at once. Without
 * `migrateHost`, a claim past T ends the session instead (failureReason `host-lost`).
 */

/** A session without `migrateHost` whose host is lost ends (the write also `ends` it). */
const hostLostChange: Change = {
  set: [
    [['state'], 'closed'],
    [['failureReason'], 'host-lost'],
  ],
};

/** The room's arbiter epoch: 0 for a room stored without an arbiter (made before them). */
const epochOf = (room: Pick<Room, 'host'>): number => room.host?.epoch ?? 0;

/** Live and active at `now`, as every rule sees a member (a lapsed socket makes it inactive). */
function isActiveAt(member: StoredMember, room: Room, now: number): boolean {
  return isLiveMember(member, room, now) && memberAt(member, room, now).s === memberStateCode('active');
}

/** Lowest member number first; members without one (stored before them) last; then by account. */
function bySuccession([a, ma]: readonly [string, StoredMember], [b, mb]: readonly [string, StoredMember]): number {
  const na = ma.n ?? Number.POSITIVE_INFINITY;
  const nb = mb.n ?? Number.POSITIVE_INFINITY;
  if (na !== nb) return na < nb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The deterministic successor at `now`: the active member, not the host, with the lowest member number. */
function preferredSuccessor(room: Room, doc: SessionDocument, now: number): string | undefined {
  const candidates = Object.entries(doc.members).filter(
    ([account, member]) => account !== room.host?.account && isActiveAt(member, room, now),
  );
  return candidates.sort(bySuccession)[0]?.[0];
}

/** A member host that holds no live slot any more (left, removed, timed out). */
function hostGone(room: Room, doc: SessionDocument, now: number): boolean {
  const account = room.host?.account;
  if (account === undefined) return false;
  const member = doc.members[account];
  return member === undefined || !isLiveMember(member, room, now);
}

/**
 * How long the host may be silent at `now`: `hostTimeoutMs`, halved once a majority of the
 * other active members reported it unreachable after it was last heard from (a report never
 * elects: it only shortens the wait).
 */
function hostTimeoutAt(room: Room, doc: SessionDocument, now: number): number {
  const { hostTimeoutMs } = hostRulesOf(constantsOf(room));
  const host = room.host;
  if (!host?.reports) return hostTimeoutMs;
  const others = Object.entries(doc.members).filter(
    ([account, member]) => account !== host.account && isActiveAt(member, room, now),
  );
  const reported = others.filter(([account]) => (host.reports?.[account] ?? -Infinity) > host.seenAt).length;
  return others.length > 0 && reported * 2 > others.length ? Math.floor(hostTimeoutMs / 2) : hostTimeoutMs;
}

/** What the room view shows of its arbiter (`host`), `next` only to live members. */
export interface HostView {
  readonly account?: string;
  readonly epoch: number;
  readonly address?: string;
  readonly next?: string;
}

/**
 * The room view's `host`: undefined for a room without an arbiter. `address`: where a
 * dedicated room's server takes players, once ready; `next`: the preferred successor, for a
 * live member (who else would act on it).
 */
export function hostView(
  room: Room,
  doc: SessionDocument,
  now: number,
  seen: { readonly isMember: boolean; readonly address?: string },
): HostView | undefined {
  if (!room.host) return undefined;
  const next = seen.isMember && room.host.account !== undefined ? preferredSuccessor(room, doc, now) : undefined;
  return {
    ...(room.host.account === undefined ? {} : { account: room.host.account }),
    epoch: room.host.epoch,
    ...(room.host.account === undefined && seen.address !== undefined ? { address: seen.address } : {}),
    ...(next === undefined ? {} : { next }),
  };
}

/** A claim to arbitrate that may not be made (now, or by this caller). */
class HostAliveError extends PlatformError {
  override readonly name = 'HostAliveError';
  readonly code = 'HOST_ALIVE';
  constructor(
    readonly roomId: string,
    why: string,
    details: { readonly epoch: number; readonly retryAfterMs?: number },
  ) {
    super(`Room ${roomId}: ${why}.`, { details: { roomId, ...details } });
  }
}

/** Only a live, active member may arbitrate a session. */
class HostClaimForbiddenError extends PlatformError {
  override readonly name = 'HostClaimForbiddenError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Only an active member of room ${roomId} may become its host; set yourself active first.`, {
      details: { roomId },
    });
  }
}

/** A session without an arbiter (its template names no arbiter rules): nobody can claim one. */
class NoArbiterError extends PlatformError {
  override readonly name = 'NoArbiterError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Session ${roomId} has no host: its template names neither migrateHost nor hostTimeoutMs.`, {
      details: { roomId },
    });
  }
}

/** What a claim at `now` comes to, judged on one read. */
export type ClaimJudgement =
  /** The caller becomes host at the next epoch (or ends the session: `ends`), IF the write holds. */
  | { readonly kind: 'write'; readonly write: RoomWrite; readonly ends: boolean }
  /** The caller already is host of the epoch it named or of the one its claim made. */
  | { readonly kind: 'already' }
  | { readonly kind: 'refused'; readonly error: PlatformError };

/** The member as read: same state clock, same disconnect mark (a socket's close or return moves it). */
function memberAsRead(account: string, member: StoredMember): Condition {
  return allOf(
    is.memberUnchanged(account, member.t),
    member.d === undefined ? absent('members', account, 'd') : equals(['members', account, 'd'], member.d),
  );
}

/** The host's loss as read still holds: its slot is gone, or still exactly as it was read (lapsed). */
function hostGoneAsRead(host: RoomHost & { account: string }, doc: SessionDocument): Condition {
  const member = doc.members[host.account];
  return member === undefined ? is.memberAbsent(host.account) : memberAsRead(host.account, member);
}

/**
 * `POST /v1/rooms/{roomId}/host` `{ epoch }` by `caller`, judged on `read` at `now`. The caller
 * must be a live member (checked by the use case) and active; the epoch current; the host
 * silent as the table says. The write's condition holds every one of those facts as read:
 *
 *   IF roomIsLive AND hostEpochIs(epoch) AND (hostSilentBefore(now - wait) | host gone as read)
 *      AND members.<caller> as read
 *   SET host = { e: epoch + 1, a: caller, s: now }     (migrateHost)
 *   SET state = closed, failureReason = host-lost      (not migrateHost: the session ends)
 */
export function judgeClaim(read: SessionRead, caller: string, epoch: number, now: Date): ClaimJudgement {
  const { room, doc } = read;
  const at = now.getTime();
  const current = epochOf(room);
  if (room.host?.account === caller && (epoch === current || epoch === current - 1)) return { kind: 'already' };
  const refuse = (error: PlatformError): ClaimJudgement => ({ kind: 'refused', error });
  if (epoch !== current) return refuse(new StaleEpochError(room.roomId, current));
  const member = doc.members[caller];
  if (!member || !isActiveAt(member, room, at)) return refuse(new HostClaimForbiddenError(room.roomId));
  const claimant = allOf(is.roomIsLive, memberAsRead(caller, member));
  const elect = (condition: Condition): ClaimJudgement => ({
    kind: 'write',
    ends: false,
    write: {
      condition: allOf(claimant, condition),
      change: { set: [[['host'], storedHost({ epoch: current + 1, account: caller, seenAt: at })]] },
      now,
    },
  });
  const host = room.host;
  // A dedicated room's arbiter is its game server, whether or not the room records one
  // (rooms made before arbiters): a member claiming it would fence the server out of its own room.
  if (!host && room.hosting === 'peerHosted') {
    // A session whose template asked for no arbiter gets none: one claimed now would end it on its loss.
    if (!asksForArbiter(constantsOf(room))) return refuse(new NoArbiterError(room.roomId));
    return elect(absent('host'));
  }
  if (!host || host.account === undefined) {
    return refuse(new HostAliveError(room.roomId, 'its game server is its arbiter', { epoch: current }));
  }
  return judgeSilence(
    { ...read, room: { ...room, host: { ...host, account: host.account } } },
    caller,
    now,
    (condition, ends) =>
      ends
        ? {
            kind: 'write',
            ends: true,
            write: {
              condition: allOf(claimant, condition),
              change: hostLostChange,
              now,
              ends: true,
            },
          }
        : elect(condition),
  );
}

/** The silence rule of `judgeClaim` for a member host (the table's header). */
function judgeSilence(
  read: SessionRead & { room: Room & { host: RoomHost & { account: string } } },
  caller: string,
  now: Date,
  claim: (condition: Condition, ends: boolean) => ClaimJudgement,
): ClaimJudgement {
  const { room, doc } = read;
  const { host } = room;
  const at = now.getTime();
  const timeout = hostTimeoutAt(room, doc, at);
  const silentFor = at - host.seenAt;
  const gone = hostGone(room, doc, at);
  const fenced = (condition: Condition) => allOf(is.hostEpochIs(host.epoch), is.hostIs(host.account), condition);
  const lost = gone ? hostGoneAsRead(host, doc) : is.hostSilentBefore(at - timeout);
  const lostNow = gone || silentFor > timeout;
  if (!hostRulesOf(constantsOf(room)).migrateHost) {
    if (lostNow) return claim(fenced(lost), true);
    return aliveRefusal(room.roomId, host.epoch, timeout - silentFor);
  }
  if (lostNow) return claim(fenced(lost), false);
  return aliveRefusal(room.roomId, host.epoch, timeout - silentFor);
}

function aliveRefusal(roomId: string, epoch: number, waitMs: number): ClaimJudgement {
  const why = 'its host was heard from within its hostTimeoutMs';
  // +1: silence must exceed the wait (the condition is strict).
  return { kind: 'refused', error: new HostAliveError(roomId, why, { epoch, retryAfterMs: Math.max(1, waitMs + 1) }) };
}

/**
 * Whether the sweeper ends this session at `now`: a member host lost (silent past its timeout,
 * or gone) in a session without `migrateHost`. The write holds that loss as read.
 */
export function hostLostWrite(read: SessionRead, now: Date): RoomWrite | undefined {
  const { room, doc } = read;
  const host = room.host;
  if (host?.account === undefined || room.state !== 'ready') return undefined;
  if (hostRulesOf(constantsOf(room)).migrateHost) return undefined;
  const at = now.getTime();
  const timeout = hostTimeoutAt(room, doc, at);
  const gone = hostGone(room, doc, at);
  if (!gone && at - host.seenAt <= timeout) return undefined;
  const memberHost = { ...host, account: host.account };
  return {
    condition: allOf(
      is.roomIsLive,
      is.hostEpochIs(host.epoch),
      is.hostIs(host.account),
      gone ? hostGoneAsRead(memberHost, doc) : is.hostSilentBefore(at - timeout),
    ),
    change: hostLostChange,
    now,
    ends: true,
  };
}

/**
 * The arbiter epoch a member's write is made in: the `X-Host-Epoch` it names (refused unless
 * the caller is the room's host at exactly that epoch, as read), else the caller's own epoch
 * when it is the host (its write refreshes `host.s`), else none.
 *
 * @throws StaleEpochError
 */
export function writerEpoch(room: Room, account: string, named: number | undefined): number | undefined {
  const host = room.host;
  const isHost = host !== undefined && host.account === account;
  if (named === undefined) return isHost ? host.epoch : undefined;
  if (!isHost || host.epoch !== named) throw new StaleEpochError(room.roomId, host?.epoch);
  return named;
}

/**
 * What a write by the room's host at `epoch` adds: it holds only while the caller is still
 * that epoch's host, and it is the host's sign of life (`host.s`), which also clears the
 * unreachable reports of the epoch.
 */
export function hostWriteOf(account: string, epoch: number, now: Date): { condition: Condition; change: Change } {
  return {
    condition: allOf(is.hostEpochIs(epoch), is.hostIs(account)),
    change: { set: [[['host', 's'], now.getTime()]], remove: [['host', 'r']] },
  };
}

/**
 * A socket of the host to its room is heard (subscribe, ping): its sign of life, without a
 * change number (nothing a reader sees changes).
 *
 *   IF roomIsLive AND hostIs(account)   SET host.s = now
 */
export function hostSeenWrite(account: string, now: Date): RoomWrite {
  return {
    condition: allOf(is.roomIsLive, is.hostIs(account)),
    change: { set: [[['host', 's'], now.getTime()]] },
    now,
    quiet: true,
  };
}
