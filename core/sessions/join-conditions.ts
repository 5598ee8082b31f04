import {
  documentOf,
  expiredMembers,
  isLiveMember,
  type DocMember,
  type RoomClock,
  type StoredMember,
} from './document';

/**
 * The join as ONE conditional UpdateItem on the session document, and what its failure
 * means. Pure: the store sends what these build, the unit tests pin them.
 */
export interface UpdateSpec {
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/** Each clause of a join's condition, by name. */
export const joinClauses = {
  roomIsLive: '#state IN (:spawning, :ready)',
  /** Spawning rooms have no server to hear from yet; a ready room without a heartbeat is no evidence. */
  serverHeardFrom: '(#state = :spawning OR attribute_not_exists(lastHeartbeatAt) OR lastHeartbeatAt >= :since)',
  joinabilityOpen: '(attribute_not_exists(#props.joinability) OR #props.joinability = :open)',
  memberAbsent: 'attribute_not_exists(#members.#a)',
  roomHasFreeSlot: '#players < maxPlayers',
} as const;

const baseNames = {
  '#state': 'state',
  '#members': 'members',
  '#players': 'players',
  '#cn': 'changeNumber',
  '#props': 'properties',
};

export interface ClaimSpec {
  readonly account: string;
  readonly keyHash: string;
  readonly member: StoredMember;
  /** A ready room must have been heard from at or after this instant (ISO); undefined: not checked. */
  readonly heartbeatSince?: string;
}

function roomConditions(since: string | undefined): { clauses: string[]; values: Record<string, unknown> } {
  return {
    clauses: [
      joinClauses.roomIsLive,
      ...(since === undefined ? [] : [joinClauses.serverHeardFrom]),
      joinClauses.joinabilityOpen,
    ],
    values: {
      ':spawning': 'spawning',
      ':ready': 'ready',
      ':open': 'open',
      ...(since === undefined ? {} : { ':since': since }),
    },
  };
}

/** The member as the claim writes it: holding the new key. */
const claimedMember = (spec: ClaimSpec): StoredMember => ({ ...spec.member, k: spec.keyHash });

/**
 * The claim: add the member holding its key, one more player, one more change; the state is
 * assigned to itself so `UPDATED_NEW` returns it without a read.
 *
 *   IF memberAbsent AND roomHasFreeSlot AND roomIsLive AND serverHeardFrom AND joinabilityOpen
 */
export function claimUpdate(spec: ClaimSpec): UpdateSpec {
  const room = roomConditions(spec.heartbeatSince);
  return {
    UpdateExpression: 'SET #members.#a = :m, #players = #players + :one, #cn = #cn + :one, #state = #state',
    ConditionExpression: [joinClauses.memberAbsent, joinClauses.roomHasFreeSlot, ...room.clauses].join(' AND '),
    ExpressionAttributeNames: { ...baseNames, '#a': spec.account },
    ExpressionAttributeValues: { ':m': claimedMember(spec), ':one': 1, ...room.values },
  };
}

/** At most this many expired members are removed by one write (the 4 KB expression limit). */
export const maxReclaimPerWrite = 32;

/**
 * Reclaim and claim in one write: remove exactly these expired members (each still as it
 * was seen: same key, same state clock) and add the joiner. The joiner's own expired entry,
 * if any, is overwritten rather than removed.
 *
 *   IF each expired member unchanged AND (joiner absent | joiner unchanged)
 *      AND players < maxPlayers + removed AND roomIsLive AND serverHeardFrom AND joinabilityOpen
 */
export function reclaimAndClaimUpdate(
  spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
): UpdateSpec {
  const room = roomConditions(spec.heartbeatSince);
  const names: Record<string, string> = { ...baseNames, '#a': spec.account };
  const values: Record<string, unknown> = { ':m': claimedMember(spec), ':one': 1, ...room.values };
  const removals: string[] = [];
  const conditions: string[] = [];
  const own = spec.expired.find((x) => x.account === spec.account);
  const others = spec.expired.filter((x) => x.account !== spec.account).slice(0, maxReclaimPerWrite);
  others.forEach((x, i) => {
    names[`#x${i}`] = x.account;
    values[`:t${i}`] = x.member.t;
    removals.push(`#members.#x${i}`);
    if (x.keyHash !== undefined) {
      values[`:k${i}`] = x.keyHash;
      conditions.push(`#members.#x${i}.k = :k${i}`);
    }
    conditions.push(`#members.#x${i}.t = :t${i}`);
  });
  if (own) {
    // Overwritten with the new key: its old key goes with it.
    values[':ownT'] = own.member.t;
    conditions.push('#members.#a.t = :ownT');
  } else {
    conditions.push(joinClauses.memberAbsent);
  }
  const removed = others.length + (own ? 1 : 0);
  values[':delta'] = 1 - removed;
  values[':cap'] = spec.maxPlayers + removed;
  return {
    UpdateExpression:
      'SET #members.#a = :m, #players = #players + :delta, #cn = #cn + :one, #state = #state' +
      (removals.length > 0 ? ` REMOVE ${removals.join(', ')}` : ''),
    ConditionExpression: [...conditions, '#players < :cap', ...room.clauses].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Why a claim's condition failed, told apart from the item as it stood (`ALL_OLD`). */
export type ClaimFailure =
  | { readonly state: 'NotFound' }
  | { readonly state: 'NotJoinable'; readonly reason: string }
  /** Ready, but its server has not been heard from since the claim's heartbeat cutoff. */
  | { readonly state: 'Silent' }
  | { readonly state: 'AlreadyMember'; readonly member: StoredMember; readonly keyHash?: string }
  /** No free slot, but these members' time ran out: remove them and claim in one write. */
  | { readonly state: 'Reclaim'; readonly expired: DocMember[] }
  | { readonly state: 'Full' }
  /**
   * No free slot, but some live members are provisional (their account checks still run, `v`):
   * a refused one gives its slot back, so this is not ROOM_FULL yet; retry.
   */
  | { readonly state: 'Pending' }
  /** The item shows nothing in the way (cannot happen with ALL_OLD; retried if it does). */
  | { readonly state: 'Retry' };

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
    const pending = Object.entries(doc.members).some(
      ([who, m]) => who !== account && m.v !== undefined && m.v > now && isLiveMember(m, room, now),
    );
    return pending ? { state: 'Pending' } : { state: 'Full' };
  }
  return { state: 'Retry' };
}
