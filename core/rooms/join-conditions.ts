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
import { allOf, holds, type Condition } from './room-expression';
import type { StoredProtocol } from '../versions/protocol';
import type { ClaimFailure, ClaimSpec, RoomWrite } from './room-store';

/**
 * The join as ONE conditional write on the session document, and what its failure means.
 * Pure: the store sends what these build (core/rooms/rooms.ts adds the room's existence, the
 * change number and `updatedAt`), the unit tests pin them.
 */

/**
 * What every join needs of the room: live, heard from (if a cutoff is given), open to joins,
 * of the client's build (if it sent one to check), its settings still the criteria (if any).
 */
function joinable(spec: ClaimSpec): Condition[] {
  const since = spec.heartbeatSince;
  const criteria = spec.criteria ?? {};
  return [
    is.roomIsLive,
    ...(since === undefined ? [] : [is.serverHeardFrom(since)]),
    is.joinabilityOpen,
    ...(spec.protocol === undefined ? [] : [is.protocolAccepts(spec.protocol)]),
    ...(Object.keys(criteria).length === 0 ? [] : [is.settingsMatch(criteria)]),
  ];
}

/** The member as the claim writes it: holding the new key, with the build it joined with. */
const claimedMember = (spec: ClaimSpec): StoredMember => ({
  ...spec.member,
  k: spec.keyHash,
  ...(spec.protocol === undefined ? {} : { v: spec.protocol }),
});

/** Echoed so a write answering only what it updated (`UPDATED_NEW`) returns them without a read. */
const claimEcho = [['state'], ['settings']] as const;

/**
 * The claim: add the member holding its key and one more player; the state and the settings
 * are echoed.
 *
 *   IF memberAbsent AND hasFreeSlot AND roomIsLive AND serverHeardFrom AND joinabilityOpen
 *      AND protocolAccepts AND settingsMatch
 */
export function claimWrite(spec: ClaimSpec, now: Date): RoomWrite {
  return {
    condition: allOf(is.memberAbsent(spec.account), is.hasFreeSlot, ...joinable(spec)),
    change: {
      set: [[['members', spec.account], claimedMember(spec)]],
      add: [[['players'], 1]],
      echo: claimEcho,
    },
    now,
  };
}

/** At most this many expired members are removed by one write (the 4 KB expression limit). */
export const maxReclaimPerWrite = 32;

/**
 * Reclaim and claim in one write: remove exactly these expired members (each still as it
 * was seen: same key, same state clock) and add the joiner. The joiner's own expired entry,
 * if any, is overwritten rather than removed.
 *
 *   IF each expired member as read AND (joiner absent | joiner unchanged)
 *      AND playersBelow(maxPlayers + removed) AND roomIsLive AND serverHeardFrom AND joinabilityOpen
 *      AND protocolAccepts AND settingsMatch
 */
export function reclaimAndClaimWrite(
  spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
  now: Date,
): RoomWrite {
  const own = spec.expired.find((x) => x.account === spec.account);
  const others = spec.expired.filter((x) => x.account !== spec.account).slice(0, maxReclaimPerWrite);
  const removed = others.length + (own ? 1 : 0);
  return {
    condition: allOf(
      ...others.map(memberAsRead),
      // Overwritten with the new key: its old key goes with it.
      own ? is.memberUnchanged(spec.account, own.member.t) : is.memberAbsent(spec.account),
      is.playersBelow(spec.maxPlayers + removed),
      ...joinable(spec),
    ),
    change: {
      set: [[['members', spec.account], claimedMember(spec)]],
      add: [[['players'], 1 - removed]],
      remove: others.map((x) => ['members', x.account]),
      echo: claimEcho,
    },
    now,
  };
}

/**
 * Why a claim failed, from the item as it stood, in this order: the room is gone, ended,
 * closed or silent (NOT_JOINABLE whatever the client's build: nothing to tell its server); the
 * account holds a live slot already (it keeps that slot, re-keyed, rather than taking a second
 * one elsewhere); the room is of another build, or its settings stopped matching (what the room
 * IS: no retry, reclaim or other slot changes it); then the slots.
 */
export function classifyClaimFailure(
  old: Record<string, unknown> | undefined,
  spec: Pick<ClaimSpec, 'account' | 'heartbeatSince' | 'protocol' | 'criteria'>,
  now: number,
): ClaimFailure {
  if (!old) return { state: 'NotFound' };
  const state = String(old.state);
  const closed = notJoinable(old, state, spec.heartbeatSince);
  if (closed) return closed;
  const doc = documentOf(old);
  const room = {
    state,
    readyAt: old.readyAt as string | undefined,
    updatedAt: old.updatedAt as string | undefined,
    constants: old.constants as RoomClock['constants'],
    reservationTimeoutS: Number(old.reservationTimeoutS),
  };
  const mine = doc.members[spec.account];
  if (mine && isLiveMember(mine, room, now)) {
    return { state: 'AlreadyMember', member: mine, ...(mine.k === undefined ? {} : { keyHash: mine.k }) };
  }
  const mismatch = buildMismatch(old, spec.protocol);
  if (mismatch) return mismatch;
  if (spec.criteria && !holds(is.settingsMatch(spec.criteria), old)) return { state: 'NotMatching' };
  const expired = expiredMembers(doc, room, now);
  const players = Number(old.players);
  const maxPlayers = Number(old.maxPlayers);
  if (mine || players >= maxPlayers) {
    // The joiner's own expired entry is replaced; other expired members make room.
    if (expired.length > 0 && players - expired.length < maxPlayers) return { state: 'Reclaim', expired };
    if (mine) return { state: 'Reclaim', expired };
    return { state: 'Full' };
  }
  return { state: 'Retry' };
}

/** The room takes no joins at all: ended, closed to joins, or its server silent since the cutoff. */
function notJoinable(
  old: Record<string, unknown>,
  state: string,
  heartbeatSince: string | undefined,
): ClaimFailure | undefined {
  if (state !== 'spawning' && state !== 'ready') return { state: 'NotJoinable', reason: `the room is ${state}` };
  const joinability = (old.properties as { joinability?: unknown } | undefined)?.joinability;
  if (joinability !== undefined && joinability !== 'open') {
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
