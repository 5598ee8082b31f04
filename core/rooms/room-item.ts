import { keys } from '../infra/keys';
import { newReservation, storedKeyHash, type StoredMember } from './document';
import { SessionDocumentFullError, SessionMemberTooLargeError } from './session-errors';
import { itemBytes, memberBudgetIssue, roomItemBudget } from './item-budget';
import { constantsOf } from './session-model';
import type { NewMember } from './member';
import { hostOf, storedHost, type Room, type StoredHost } from './model';

/**
 * By default an ended room (and its members, in the same item) is collected by TTL a day after
 * it ended (`ENDED_ROOM_RETENTION_S`): long enough for GET to show why it failed.
 */
export const endedRoomTtlS = 86_400;

/**
 * The members map of a new room: its creator's reservation, if it has a creator, and its
 * party's when the creator brought one (matchmaking's create). Their scopes
 * are kept as a join keeps them (`storedScopes`: within the room's `serverScopes`), so the
 * room must say what those are.
 */
export function firstMembers(
  room: Pick<Room, 'state' | 'constants' | 'maxPlayers' | 'reservationTimeoutS' | 'serverScopes'>,
  member?: NewMember | readonly NewMember[],
): Record<string, StoredMember> {
  const members: Record<string, StoredMember> = {};
  for (const each of member === undefined ? [] : Array.isArray(member) ? member : [member as NewMember]) {
    members[each.account] = firstMember(room, each);
  }
  return members;
}

/** One first member: a pending reservation, or one with a fixed expiry. */
function firstMember(
  room: Pick<Room, 'state' | 'constants' | 'maxPlayers' | 'reservationTimeoutS' | 'serverScopes'>,
  member: NewMember,
): StoredMember {
  const created = Date.parse(member.createdAt);
  const reservation: StoredMember =
    member.expiresAt === undefined
      ? newReservation(room, created, constantsOf(room).timeouts, member.scopes)
      : {
          // A fixed expiry: timed from now whatever the room's state (no pending `p`).
          ...newReservation({ ...room, state: 'ready' }, created, constantsOf(room).timeouts, member.scopes),
          e: Date.parse(member.expiresAt),
        };
  return {
    ...reservation,
    k: storedKeyHash(member.keyHash),
    ...(member.v === undefined ? {} : { v: member.v }),
  };
}

/**
 * A new room's item within its budget (core/rooms/item-budget.ts): its own fields within
 * their share, its creator within a member's. Every field a caller chooses is already capped
 * by its schema; this keeps a combination of them from starting a room it could not run.
 */
export function checkNewRoomBudget(
  roomId: string,
  item: Record<string, unknown>,
  members: Readonly<Record<string, StoredMember>>,
): void {
  for (const [account, member] of Object.entries(members)) {
    const issue = memberBudgetIssue(account, member);
    if (issue !== undefined) throw new SessionMemberTooLargeError(roomId, issue);
  }
  const { members: _members, gone: _gone, ...fields } = item;
  const bytes = itemBytes(fields);
  if (bytes > roomItemBudget.roomFieldsBytes) {
    throw new SessionDocumentFullError(roomId, {
      why: `its own fields would take ${bytes} bytes of its item; the limit is ${roomItemBudget.roomFieldsBytes}`,
    });
  }
}

/** A room's whole item as `createWithMember` writes it: its session document and its index keys. */
export function roomItem(room: Room, members: Readonly<Record<string, StoredMember>>): Record<string, unknown> {
  return {
    ...keys.room(room.roomId),
    type: 'room',
    ...room,
    ...(room.host === undefined ? {} : { host: storedHost(room.host) }),
    constants: constantsOf(room),
    members,
    gone: {},
    ...keys.roomIndexes(room),
  };
}

/** The room fields of a room item (its members are read through core/rooms/rooms.ts). */
export function roomOf(item: Record<string, unknown>): Room {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    gsi1pk: _g1,
    gsi1sk: _g2,
    gsi2pk: _g3,
    gsi2sk: _g4,
    gsi3pk: _g5,
    gsi3sk: _g6,
    ttl: _ttl,
    members: _members,
    // `keys`: the former key map, ignored if a room still carries it.
    keys: _keys,
    gone: _gone,
    // The change kinds' change numbers: read by the taps from the stream, not part of a room.
    cn: _cn,
    // The arbiter's saved state: read apart (core/rooms/saved-state.ts), never carried on the room.
    saved: _saved,
    host,
    ...room
  } = item;
  return (host === undefined ? room : { ...room, host: hostOf(host as StoredHost) }) as unknown as Room;
}
