import {
  enterState,
  expiryOf,
  isLiveMember,
  memberOf,
  memberOfKey,
  memberStateOf,
  preConfirmation,
  type DocMember,
  type StoredMember,
} from './document';
import { roomItemBudget } from './item-budget';
import type { SessionTimeouts } from './session-model';
import type { Member } from './member';
import type { Room } from './model';
import { memberAsRead, roomConditions as is } from './room-conditions';
import { allOf, type Change, type Condition } from './room-expression';
import type { ConfirmResult, ReissueChange, RoomWrite, SessionRead } from './room-store';

/**
 * The writes that change a room's members, other than the join's claim
 * (core/rooms/join-conditions.ts) and the PATCHes (core/rooms/patch-conditions.ts): each
 * a pure function of what was read and `now`, returning the `RoomWrite` the one store sends.
 */

const memberPath = (account: string, ...field: string[]) => ['members', account, ...field];

/**
 * A member who joins again keeps its slot with a fresh key (the old key stops working, an
 * unused confirmation mark goes): IF the old key is still its key AND its state clock is
 * unchanged AND it has not expired [AND protocolAccepts(protocol)]. A stored expiry is checked
 * here; a derived one (`t` + the template's timeout) is fixed by the state clock `t`, and the
 * caller judged it live at `now` from the same read. The build is the one this join sent
 * (`v`, none sent: removed): `joined` judges the client holding the new key, whatever an
 * earlier join of the account sent.
 */

export function reissueKeyWrite(change: ReissueChange): RoomWrite {
  const { account, protocol } = change;
  return {
    condition: allOf(
      is.memberUnchanged(account, change.member.t),
      is.memberNotExpired(account, change.now),
      change.oldKeyHash === undefined ? is.memberHoldsNoKey(account) : is.keyMatches(account, change.oldKeyHash),
      ...(protocol === undefined ? [] : [is.protocolAccepts(protocol)]),
    ),
    change:
      protocol === undefined
        ? {
            set: [[memberPath(account, 'k'), change.newKeyHash]],
            remove: [memberPath(account, 'u'), memberPath(account, 'v')],
          }
        : {
            set: [
              [memberPath(account, 'k'), change.newKeyHash],
              [memberPath(account, 'v'), protocol],
            ],
            remove: [memberPath(account, 'u')],
          },
    now: new Date(change.now),
  };
}

/**
 * Undoes a claim the account checks refused: removes exactly that member IF it still holds
 * that key, or, for a re-keyed member, puts its old key and the build it was given with back IF
 * the new key is still current.
 */
export function undoClaimWrite(
  undo: { account: string; keyHash: string; previousKeyHash?: string; previousBuild?: string; reissued: boolean },
  now: Date,
): RoomWrite {
  const { account } = undo;
  if (!undo.reissued) {
    const change: Change = { add: [[['players'], -1]], remove: [memberPath(account)] };
    return { condition: is.keyMatches(account, undo.keyHash), change, now };
  }
  const restored = [
    ['k', undo.previousKeyHash],
    ['v', undo.previousBuild],
  ] as const;
  const change: Change = {
    set: restored.flatMap(([field, value]) => (value === undefined ? [] : [[memberPath(account, field), value]])),
    remove: restored.flatMap(([field, value]) => (value === undefined ? [memberPath(account, field)] : [])),
  };
  return { condition: is.keyMatches(account, undo.keyHash), change, now };
}

/** A tombstone written with a removal: `seen` how many the read showed, `prune` which go now. */
export interface TombstoneWrite {
  readonly keyHash: string;
  readonly value: string;
  readonly prune: readonly string[];
  readonly seen: number;
}

/**
 * Removes exactly these members, each only while it is still as it was read, and records
 * `emptySince` (when the last of them left) in the same write, so a session left empty knows
 * since when. With a tombstone, the `left` that did it is recorded in `gone`, pruning old
 * ones so the map stays bounded (goneStaysBounded: with each pruned tombstone still there,
 * it ends at most at the bound, or, a room stored with more, no larger than it was read).
 */
export function removeMembersWrite(
  batch: readonly DocMember[],
  now: Date,
  emptySince: number,
  tombstone?: TombstoneWrite,
): RoomWrite {
  const conditions: Condition[] = [is.playersAtLeast(batch.length), ...batch.map(memberAsRead)];
  const set: [readonly string[], unknown][] = [[['emptySince'], emptySince]];
  const remove = batch.map((x) => memberPath(x.account));
  if (tombstone) {
    set.push([['gone', tombstone.keyHash], tombstone.value]);
    for (const hash of tombstone.prune) {
      conditions.push(is.tombstoneStored(hash));
      remove.push(['gone', hash]);
    }
    const bound = Math.max(roomItemBudget.tombstones - 1 + tombstone.prune.length, tombstone.seen);
    conditions.push(is.tombstonesAtMost(bound));
  }
  return { condition: allOf(...conditions), change: { set, add: [[['players'], -batch.length]], remove }, now };
}

/** When the last of these expired members left: the latest expiry, never before an earlier departure. */
export function departedAt(read: SessionRead, batch: readonly DocMember[]): number {
  return Math.max(read.room.emptySince ?? 0, ...batch.map((x) => expiryOf(x.member, read.room) ?? 0));
}

/**
 * `joined`: how the key `hash` is judged on the document as read, and the write that confirms
 * it if it may be. Reserved → active, once, for the holder of the key, before the reservation
 * expires (judged against `now`). The confirming request and time are written in the same
 * conditional write, and the reservation as it was is kept, so `abandon` can undo a
 * confirmation the game never saw. A member that joined with a build (`v`) the room's server
 * is not of is refused while the room checks builds (`buildMismatch`), on the read and again
 * in the write (`protocolAccepts`), so a server reporting its build in between cannot let one
 * through.
 *
 *   IF keyMatches AND memberUnchanged AND keyUnused AND roomIsLive [AND protocolAccepts(v)]
 */
export function confirmation(
  read: SessionRead,
  hash: string,
  requestId: string,
  now: Date,
): { readonly answer: ConfirmResult } | { readonly write: RoomWrite; readonly confirmed: Member } {
  const found = memberOfKey(read.doc, hash);
  if (!found) return { answer: { state: 'Rejected', reason: 'unknown-key' } };
  const { account, member: raw } = found;
  // Every field checked: what is confirmed here ends up in a signed token.
  const member = memberOf(raw, account);
  if (member.u !== undefined) return { answer: usedKeyAnswer(read.room, account, member, hash, requestId) };
  if (!isLiveMember(member, read.room, now.getTime())) return { answer: { state: 'Rejected', reason: 'expired' } };
  const mismatch = buildMismatch(read.room, account, member);
  if (mismatch) return { answer: mismatch };
  const wasActive = memberStateOf(member.s) === 'active';
  // The copy kept for `abandon` is the reservation's state and clock: the key, scopes and
  // properties stay the member's (stored once), and `abandon` keeps them.
  const confirmed: StoredMember = {
    ...(wasActive ? member : { ...enterState('active', now.getTime(), noTimeouts, member), ...ownFields(member) }),
    u: requestId,
    a: now.getTime(),
    ...(wasActive ? {} : { b: preConfirmation(member) }),
  };
  return {
    write: {
      condition: allOf(
        is.keyMatches(account, hash),
        is.memberUnchanged(account, member.t),
        is.keyUnused(account),
        is.roomIsLive,
        ...(member.v === undefined ? [] : [is.protocolAccepts(member.v)]),
      ),
      change: { set: [[memberPath(account), confirmed]] },
      now,
    },
    confirmed: memberView(read.room, account, confirmed, hash),
  };
}

/**
 * A confirmation refused on the item as it stood (`ALL_OLD`): a parallel duplicate confirmed
 * first, or something else changed. Without `u` the write failed on something else (the
 * member's clock moved, the room is no longer live): there is no first answer to repeat.
 */
export function confirmationRefused(current: SessionRead | undefined, hash: string, requestId: string): ConfirmResult {
  const found = current && memberOfKey(current.doc, hash);
  if (!found) return { state: 'Rejected', reason: 'unknown-key' };
  const { account, member } = found;
  if (member.u === undefined)
    return buildMismatch(current.room, account, member) ?? { state: 'Rejected', reason: 'used' };
  return usedKeyAnswer(current.room, account, member, hash, requestId);
}

/**
 * A member refused at `joined` for its build gives its slot back, so players who can never be
 * confirmed do not fill the room: removed IF it still holds the key as read AND players ≥ 1
 * (`removeMembersWrite`). Undefined when no member holds the key any more.
 */
export function refusedBuildWrite(read: SessionRead, hash: string, now: Date): RoomWrite | undefined {
  const found = memberOfKey(read.doc, hash);
  if (!found) return undefined;
  const emptySince = Math.max(read.room.emptySince ?? 0, now.getTime());
  return removeMembersWrite([{ ...found, keyHash: hash }], now, emptySince);
}

/**
 * Whether a member's build (`v`, the set hash its client joined with) is refused by the room:
 * both hashes known, different, and the room made with the check on (docs/versions.md). Pure.
 */
function buildMismatch(
  room: Pick<Room, 'protocol' | 'protocolCheck'>,
  account: string,
  member: Pick<StoredMember, 'v'>,
): Extract<ConfirmResult, { state: 'Mismatch' }> | undefined {
  const server = room.protocol;
  if (member.v === undefined || server === undefined || room.protocolCheck === false || server.h === member.v) {
    return undefined;
  }
  return { state: 'Mismatch', account, client: member.v, server };
}

/**
 * Undoes the confirmation the game request `requestId` made with this key (`abandoned`): the
 * member becomes the reservation it was, with its original expiry, keeping the key, scopes and
 * properties it holds. Undefined when there is nothing of that request's to undo.
 *
 *   IF keyMatches AND keyUsedBy(requestId)
 */
export function abandonWrite(read: SessionRead, hash: string, requestId: string, now: Date): RoomWrite | undefined {
  const found = memberOfKey(read.doc, hash);
  if (!found || found.member.u !== requestId) return undefined;
  const { account, member } = found;
  const restored: StoredMember = member.b
    ? { ...member.b, ...ownFields(member), k: hash }
    : { ...(({ u: _u, ...rest }) => rest)(member), k: hash };
  return {
    condition: allOf(is.keyMatches(account, hash), is.keyUsedBy(account, requestId)),
    change: { set: [[memberPath(account), restored]] },
    now,
  };
}

/**
 * A used key presented again: the first answer for the request that used it (`u`), delivered
 * again; a rejection for any other request, whoever it comes from and whatever the member's
 * state, so someone who saw a player's key cannot take that player's seat with it.
 */
export function usedKeyAnswer(
  room: Room,
  account: string,
  member: StoredMember,
  keyHash: string,
  requestId: string,
): ConfirmResult {
  return member.u === requestId
    ? { state: 'AlreadyConfirmed', member: memberView(room, account, member, keyHash) }
    : { state: 'Rejected', reason: 'used' };
}

/** What a member holds whatever its state: its scopes, its own properties, its member number and its client's build. */
export const ownFields = (member: StoredMember): Pick<StoredMember, 'c' | 'q' | 'n' | 'v'> => ({
  ...(member.c === undefined ? {} : { c: member.c }),
  ...(member.q === undefined ? {} : { q: member.q }),
  ...(member.n === undefined ? {} : { n: member.n }),
  ...(member.v === undefined ? {} : { v: member.v }),
});

/** Confirmed members run no timeout in configuration rooms; templates may give `inactive` one. */
const noTimeouts: SessionTimeouts = { reservedMs: null, readyMs: null, inactiveMs: null, sessionEmptyMs: null };

/** A member as the platform (not the API) sees it. */
export function memberView(room: Room, account: string, m: StoredMember, keyHash?: string): Member {
  const expiry = expiryOf(m, room);
  return {
    roomId: room.roomId,
    account,
    state: memberStateOf(m.s),
    ...(keyHash === undefined ? {} : { keyHash }),
    scopes: m.c ?? [],
    ...(expiry === undefined ? {} : { expiresAt: new Date(expiry).toISOString() }),
    ...(m.p !== undefined && m.e === undefined ? { pending: true } : {}),
    ...(m.u === undefined ? {} : { keyUsedBy: m.u }),
    ...(m.a === undefined ? {} : { confirmedAt: new Date(m.a).toISOString() }),
    since: new Date(m.t).toISOString(),
  };
}
