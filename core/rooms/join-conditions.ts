import {
  documentOf,
  expiredMembers,
  isLiveMember,
  type DocMember,
  type RoomClock,
  type StoredMember,
} from './document';
import { memberAsRead, roomConditions as is } from './room-conditions';
import { allOf, type Condition } from './room-expression';
import type { ClaimFailure, ClaimSpec, RoomWrite } from './room-store';

/**
 * The join as ONE conditional write on the session document, and what its failure means.
 * Pure: the store sends what these build (core/rooms/rooms.ts adds the room's existence, the
 * change number and `updatedAt`), the unit tests pin them.
 */

/** What every join needs of the room: live, heard from (if a cutoff is given), open to joins. */
function joinable(since: string | undefined): Condition[] {
  return [is.roomIsLive, ...(since === undefined ? [] : [is.serverHeardFrom(since)]), is.joinabilityOpen];
}

/** The member as the claim writes it: holding the new key. */
const claimedMember = (spec: ClaimSpec): StoredMember => ({ ...spec.member, k: spec.keyHash });

/**
 * The claim: add the member holding its key and one more player; the state is echoed so a
 * write answering only what it updated (`UPDATED_NEW`) returns it without a read.
 *
 *   IF memberAbsent AND hasFreeSlot AND roomIsLive AND serverHeardFrom AND joinabilityOpen
 */
export function claimWrite(spec: ClaimSpec, now: Date): RoomWrite {
  return {
    condition: allOf(is.memberAbsent(spec.account), is.hasFreeSlot, ...joinable(spec.heartbeatSince)),
    change: {
      set: [[['members', spec.account], claimedMember(spec)]],
      add: [[['players'], 1]],
      echo: [['state']],
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
      ...joinable(spec.heartbeatSince),
    ),
    change: {
      set: [[['members', spec.account], claimedMember(spec)]],
      add: [[['players'], 1 - removed]],
      remove: others.map((x) => ['members', x.account]),
      echo: [['state']],
    },
    now,
  };
}

export function classifyClaimFailure(
  old: Record<string, unknown> | undefined,
  account: string,
  now: number,
  heartbeatSince?: string,
): ClaimFailure {
  if (!old) return { state: 'NotFound' };
  const state = String(old.state);
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
  const doc = documentOf(old);
  const room = {
    state,
    readyAt: old.readyAt as string | undefined,
    updatedAt: old.updatedAt as string | undefined,
    constants: old.constants as RoomClock['constants'],
    reservationTimeoutS: Number(old.reservationTimeoutS),
  };
  const mine = doc.members[account];
  const expired = expiredMembers(doc, room, now);
  if (mine && isLiveMember(mine, room, now)) {
    return { state: 'AlreadyMember', member: mine, ...(mine.k === undefined ? {} : { keyHash: mine.k }) };
  }
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
