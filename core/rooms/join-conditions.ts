import {
  documentOf,
  expiredMembers,
  isLiveMember,
  type DocMember,
  type RoomClock,
  type StoredMember,
} from './document';
import { memberAsRead, roomConditions as is } from './room-conditions';
import { roomOf } from './room-item';
import { allOf, holds, type AttributePath, type Condition } from './room-expression';
import type { StoredProtocol } from '../versions/protocol';
import type { ClaimFailure, ClaimMember, ClaimSpec, HeldSlot, RoomWrite } from './room-store';

/**
 * The join as ONE conditional write on the session document, and what its failure means.
 * Pure: the store sends what these build (core/rooms/rooms.ts adds the room's existence, the
 * change number and `updatedAt`), the unit tests pin them.
 */

/**
 * What every join needs of the room: live, heard from (if a cutoff is given), open to joins,
 * of the client's build (if it sent one to check), its settings still the criteria (if any).
 */
export function joinable(
  spec: Pick<ClaimSpec, 'heartbeatSince' | 'protocol' | 'criteria' | 'held'> & {
    readonly members: readonly { readonly account: string }[];
  },
  now: number,
): Condition[] {
  const since = spec.heartbeatSince;
  const criteria = spec.criteria ?? {};
  const held = spec.members.filter((seat) => spec.held?.[seat.account] !== undefined).map((seat) => seat.account);
  return [
    is.roomIsLive,
    ...(since === undefined ? [] : [is.serverHeardFrom(since)]),
    is.joinabilityAdmits({ held, addsNewcomer: held.length < spec.members.length }, now),
    ...(spec.protocol === undefined ? [] : [is.protocolAccepts(spec.protocol)]),
    ...(Object.keys(criteria).length === 0 ? [] : [is.settingsMatch(criteria)]),
  ];
}

type SetEntry = readonly [AttributePath, unknown];

/** The member as the claim writes it: holding the new key, with the build it joined with. */
const claimedMember = (seat: ClaimMember, protocol: string | undefined): StoredMember => ({
  ...seat.member,
  k: seat.keyHash,
  ...(protocol === undefined ? {} : { v: protocol }),
});

/** Echoed so a write answering only what it updated (`UPDATED_NEW`) returns them without a read. */
const claimEcho = [['state'], ['settings']] as const;

/** The members the claim adds: every one but those holding a live slot already (`held`). */
const newcomers = (spec: ClaimSpec): readonly ClaimMember[] =>
  spec.members.filter((seat) => spec.held?.[seat.account] === undefined);

/**
 * A held member keeps its slot while it is as read (same state clock and key, not expired):
 * its key is replaced and it takes the build this join sent (none sent: none), as a re-key does
 * (core/rooms/member-writes.ts `reissueKeyWrite`).
 */
function heldWrites(
  spec: ClaimSpec,
  now: number,
): { conditions: Condition[]; set: SetEntry[]; remove: AttributePath[] } {
  const conditions: Condition[] = [];
  const set: SetEntry[] = [];
  const remove: AttributePath[] = [];
  for (const seat of spec.members) {
    const held = spec.held?.[seat.account];
    if (!held) continue;
    const path = (field: string) => ['members', seat.account, field] as const;
    conditions.push(
      is.memberUnchanged(seat.account, held.member.t),
      is.memberNotExpired(seat.account, now),
      held.keyHash === undefined ? is.memberHoldsNoKey(seat.account) : is.keyMatches(seat.account, held.keyHash),
    );
    set.push([path('k'), seat.keyHash]);
    if (spec.protocol === undefined) remove.push(path('v'));
    else set.push([path('v'), spec.protocol]);
    remove.push(path('u'));
  }
  return { conditions, set, remove };
}

/** Room for `slots` more players, `freed` of the stored ones removed by the same write. */
function roomFor(spec: ClaimSpec, slots: number, freed: number): Condition[] {
  if (slots === 0) return [];
  // One slot with nothing freed: the solo join's condition, judged against the item's own cap.
  if (slots === 1 && freed === 0) return [is.hasFreeSlot];
  if (spec.maxPlayers === undefined) throw new Error('a claim of several slots needs the room’s maxPlayers');
  return [is.playersBelow(spec.maxPlayers - slots + 1 + freed)];
}

/**
 * The claim: add every newcomer holding its key and that many players, re-key the held ones
 * (a party's members already in the room keep their slots); the state and the settings are
 * echoed. All of them or none: one conditional write.
 *
 *   IF each newcomer memberAbsent AND each held member as read
 *      AND room for the newcomers (hasFreeSlot | playersBelow(maxPlayers − newcomers + 1))
 *      AND roomIsLive AND serverHeardFrom AND joinabilityAdmits AND protocolAccepts AND settingsMatch
 */
export function claimWrite(spec: ClaimSpec, now: Date): RoomWrite {
  const joining = newcomers(spec);
  const held = heldWrites(spec, now.getTime());
  return {
    condition: allOf(
      ...joining.map((seat) => is.memberAbsent(seat.account)),
      ...held.conditions,
      ...roomFor(spec, joining.length, 0),
      ...joinable(spec, now.getTime()),
    ),
    change: {
      set: [
        ...joining.map((seat) => [['members', seat.account], claimedMember(seat, spec.protocol)] as SetEntry),
        ...held.set,
      ],
      ...(joining.length === 0 ? {} : { add: [[['players'], joining.length]] }),
      ...(held.remove.length === 0 ? {} : { remove: held.remove }),
      echo: claimEcho,
    },
    now,
  };
}

/** At most this many expired members are removed by one write (the 4 KB expression limit). */
export const maxReclaimPerWrite = 32;
/** A held seat's checks (state clock, expiry, key; an invite's two) cost as much as two removals. */
const reclaimSlotsPerSeat = 2;
/** The largest party (core/auth/token-model.ts `maxPartyEntries`) still removes this many. */
const minReclaimPerWrite = 2;

/**
 * The expired members one claim of a party of `partySize` (its leader counted) may remove:
 * each seat takes its share of the expression's 4 KB and 300 operators (a held one most, an
 * invited member's checks with it), so each seat beyond the first leaves room for one fewer
 * removal (test/unit/core/rooms/join-conditions.test.ts compiles the worst case of every size).
 */
export function reclaimBatchFor(partySize: number): number {
  return Math.max(minReclaimPerWrite, maxReclaimPerWrite - reclaimSlotsPerSeat * (Math.max(1, partySize) - 1));
}

/**
 * Reclaim and claim in one write: remove exactly these expired members (each still as it
 * was seen: same key, same state clock) and add the newcomers. A newcomer's own expired entry,
 * if any, is overwritten rather than removed.
 *
 *   IF each expired member as read AND each newcomer (absent | unchanged) AND each held member as read
 *      AND playersBelow(maxPlayers − newcomers + 1 + removed) AND roomIsLive AND serverHeardFrom
 *      AND joinabilityAdmits AND protocolAccepts AND settingsMatch
 */
export function reclaimAndClaimWrite(
  spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
  now: Date,
): RoomWrite {
  const party = new Set(spec.members.map((seat) => seat.account));
  const joining = newcomers(spec);
  const own = new Map(
    spec.expired.filter((x) => party.has(x.account) && !spec.held?.[x.account]).map((x) => [x.account, x]),
  );
  const others = spec.expired.filter((x) => !party.has(x.account)).slice(0, reclaimBatchFor(spec.members.length));
  const removed = others.length + own.size;
  const held = heldWrites(spec, now.getTime());
  return {
    condition: allOf(
      ...others.map(memberAsRead),
      // Overwritten with the new key: its old key goes with it.
      ...joining.map((seat) => {
        const mine = own.get(seat.account);
        return mine ? is.memberUnchanged(seat.account, mine.member.t) : is.memberAbsent(seat.account);
      }),
      ...held.conditions,
      is.playersBelow(spec.maxPlayers - joining.length + 1 + removed),
      ...joinable(spec, now.getTime()),
    ),
    change: {
      set: [
        ...joining.map((seat) => [['members', seat.account], claimedMember(seat, spec.protocol)] as SetEntry),
        ...held.set,
      ],
      add: [[['players'], joining.length - removed]],
      remove: [...others.map((x) => ['members', x.account]), ...held.remove],
      echo: claimEcho,
    },
    now,
  };
}

/**
 * Why a claim failed, from the item as it stood, in this order: the room is gone, ended,
 * closed or silent (NOT_JOINABLE whatever the client's build: nothing to tell its server); a
 * solo joiner holds a live slot already (it keeps that slot, re-keyed, rather than taking a
 * second one elsewhere), or a party's members holding live slots are not the claim's `held`
 * (claimed again with them re-keyed); the room is of another build, or its settings stopped
 * matching (what the room IS: no retry, reclaim or other slot changes it); then the slots:
 * Full only when the whole party does not fit even with every expired member removed.
 */
export function classifyClaimFailure(
  old: Record<string, unknown> | undefined,
  spec: Pick<ClaimSpec, 'members' | 'held' | 'heartbeatSince' | 'protocol' | 'criteria'>,
  now: number,
): ClaimFailure {
  if (!old) return { state: 'NotFound' };
  const state = String(old.state);
  const accounts = spec.members.map((seat) => seat.account);
  // Every account invited (as held seats, once re-keyed), or the room open.
  const admitted = holds(is.joinabilityAdmits({ held: accounts, addsNewcomer: false }, now), old);
  const closed = notJoinable(old, state, spec.heartbeatSince, admitted);
  if (closed) return closed;
  const doc = documentOf(old);
  const room = {
    state,
    readyAt: old.readyAt as string | undefined,
    updatedAt: old.updatedAt as string | undefined,
    constants: old.constants as RoomClock['constants'],
    reservationTimeoutS: Number(old.reservationTimeoutS),
  };
  const live = liveSlots(spec.members, doc, room, now);
  if (spec.members.length === 1 && spec.held === undefined) {
    const mine = live[spec.members[0]!.account];
    if (mine) return { state: 'AlreadyMember', ...mine };
  } else if (!sameSlots(live, spec.held ?? {})) {
    return { state: 'Replan', held: live };
  }
  const mismatch = buildMismatch(old, spec.protocol);
  if (mismatch) return mismatch;
  if (spec.criteria && !holds(is.settingsMatch(spec.criteria), old)) return { state: 'NotMatching' };
  return slotsFailure(old, spec.members, doc, room, live, now);
}

/**
 * Full, Reclaim or Retry: Full when the party does not fit even with every expired member ONE
 * write may remove gone (its newcomers' own expired entries, replaced, and `reclaimBatchFor`
 * others), so a claim needing more never repeats a write that cannot hold.
 */
function slotsFailure(
  old: Record<string, unknown>,
  members: ClaimSpec['members'],
  doc: ReturnType<typeof documentOf>,
  room: RoomClock,
  live: Readonly<Record<string, HeldSlot>>,
  now: number,
): ClaimFailure {
  const expired = expiredMembers(doc, room, now);
  const joining = members.filter((seat) => live[seat.account] === undefined);
  const party = new Set(members.map((seat) => seat.account));
  // A newcomer's own expired entry is replaced; other expired members make room.
  const own = joining.filter((seat) => doc.members[seat.account] !== undefined).length;
  const others = expired.filter((x) => !party.has(x.account)).length;
  const removable = own + Math.min(others, reclaimBatchFor(members.length));
  const players = Number(old.players);
  const maxPlayers = Number(old.maxPlayers);
  if (own > 0 || players + joining.length > maxPlayers) {
    if (expired.length > 0 && players - removable + joining.length <= maxPlayers) {
      return { state: 'Reclaim', expired };
    }
    return { state: 'Full' };
  }
  return { state: 'Retry' };
}

/** The claim's accounts that hold a live slot in the document, as they stand. */
function liveSlots(
  members: readonly { readonly account: string }[],
  doc: ReturnType<typeof documentOf>,
  room: RoomClock,
  now: number,
): Record<string, HeldSlot> {
  const live: Record<string, HeldSlot> = {};
  for (const { account } of members) {
    const member = doc.members[account];
    if (member && isLiveMember(member, room, now))
      live[account] = { member, ...(member.k === undefined ? {} : { keyHash: member.k }) };
  }
  return live;
}

/** Whether two sets of held slots are the same accounts, each at the same state clock and key. */
function sameSlots(a: Readonly<Record<string, HeldSlot>>, b: Readonly<Record<string, HeldSlot>>): boolean {
  const accounts = Object.keys(a);
  if (accounts.length !== Object.keys(b).length) return false;
  return accounts.every((account) => {
    const x = a[account]!;
    const y = b[account];
    return y !== undefined && x.member.t === y.member.t && x.keyHash === y.keyHash;
  });
}

/** The room takes no joins at all: ended, closed to joins, or its server silent since the cutoff. */
function notJoinable(
  old: Record<string, unknown>,
  state: string,
  heartbeatSince: string | undefined,
  admitted: boolean,
): ClaimFailure | undefined {
  if (state !== 'spawning' && state !== 'ready') return { state: 'NotJoinable', reason: `the room is ${state}` };
  // `inviteOnly` admits the invited (`joinabilityAdmits`): their held reservation is re-keyed.
  if (!admitted) {
    const joinability = (old.properties as { joinability?: unknown } | undefined)?.joinability;
    return { state: 'NotJoinable', reason: `its joinability is ${String(joinability)}` };
  }
  if (
    heartbeatSince !== undefined &&
    state === 'ready' &&
    typeof old.lastHeartbeatAt === 'string' &&
    old.lastHeartbeatAt < heartbeatSince
  ) {
    return { state: 'Silent' };
  }
  return undefined;
}

/**
 * The room's server is of another build than the client's, and the room checks builds: on
 * a claim's `ALL_OLD`, and on a re-key's (core/rooms/member-writes.ts `reissueKeyWrite`).
 */
export function buildMismatch(
  old: Record<string, unknown>,
  client: string | undefined,
): Extract<ClaimFailure, { state: 'Mismatch' }> | undefined {
  if (client === undefined || holds(is.protocolAccepts(client), old)) return undefined;
  return { state: 'Mismatch', server: old.protocol as StoredProtocol, room: roomOf(old) };
}
