import { playerAddress, unknownHost } from '../gameservers/server-address';
import { toRoomView, type ListedRoom, type Room, type RoomView } from './model';
import { expiryOf, isLiveMember, memberAt, memberStateOf, type SessionDocument, type StoredMember } from './document';
import { formatETag } from './if-match';
import type { Hosting } from './member-transitions';
import { hostView, type HostView } from './host';
import {
  constantsOf,
  hostRulesOf,
  isLargeSession,
  type MemberState,
  type SessionConstants,
  type SessionProperties,
} from './session-model';

/** The room view of docs/api.md with its session document (`sessionRoomViewSchema`). */
export interface SessionRoomView extends RoomView {
  readonly template: string | null;
  readonly constants: SessionConstants;
  readonly properties: SessionProperties;
  readonly members?: readonly MemberEntry[];
  /** A large session: the caller's own entry (its document never holds the list). */
  readonly member?: MemberEntry;
  /** Where the game server takes players: for live members of a ready room (its address is known then). */
  readonly server?: { readonly host: string; readonly ports: readonly number[] };
  /** The room's arbiter (core/rooms/host.ts `hostView`); absent on rooms stored without one. */
  readonly host?: HostView;
}

interface MemberEntry {
  readonly account: string;
  readonly state: MemberState;
  readonly properties: { readonly custom: Record<string, unknown> };
  /** Admins only: when the slot runs out unless its holder moves on (absent: no timeout runs). */
  readonly expiresAt?: string;
}

/** The constants as a session shows them: the arbiter's rules resolved (rooms made before them: the defaults). */
const constantsViewOf = (room: Parameters<typeof constantsOf>[0]): SessionConstants => {
  const constants = constantsOf(room);
  return { ...constants, ...hostRulesOf(constants) };
};

export const hostingOf = (room: Pick<Room, 'hosting'>): Hosting => room.hosting ?? 'dedicated';

const propertiesOf = (room: Pick<Room, 'properties'>): SessionProperties => ({
  joinability: room.properties?.joinability ?? 'open',
  custom: room.properties?.custom ?? {},
});

/** Whether `account` holds a live slot at `now` (an expired member is no member any more). */
function isMemberAt(room: Room, doc: SessionDocument, account: string, now: Date): boolean {
  const member = doc.members[account];
  return member !== undefined && isLiveMember(member, room, now.getTime());
}

/**
 * Who may read the room at all: `open` and `visible` sessions anyone, `private` ones only
 * their live members (everyone else gets 404, as if there were no such room).
 */
export function readableBy(room: Room, doc: SessionDocument, account: string, now: Date): boolean {
  return constantsOf(room).visibility !== 'private' || isMemberAt(room, doc, account, now);
}

/**
 * The room as `account` sees it at `now`: expired members are gone from it (and from
 * `players`) whatever the item still holds; `members` only for a live member, or for anyone
 * when the visibility is `open`.
 */
export function sessionRoomView(room: Room, doc: SessionDocument, now: Date, account: string): SessionRoomView {
  const constants = constantsOf(room);
  const at = now.getTime();
  const live = Object.entries(doc.members).filter(([, member]) => isLiveMember(member, room, at));
  const isMember = live.some(([holder]) => holder === account);
  const large = isLargeSession(constants);
  const showMembers = !large && (constants.visibility === 'open' || isMember);
  // A ready room always has an address (core/gameservers/server-address.ts): a member polling
  // after a 202 finds here what its reservation said was `pending`.
  const host = room.state === 'ready' ? playerAddress(room) : undefined;
  const arbiter = hostView(room, doc, at, { isMember, ...(host === undefined ? {} : { address: host }) });
  return {
    ...toRoomView(room),
    // The stored count less the members whose time ran out: `players` counts the live members only.
    // A large session's count is as stored: an expired reservation counts until a write removes it.
    players: large ? room.players : Math.max(0, room.players - (Object.keys(doc.members).length - live.length)),
    template: room.template ?? null,
    constants: { ...constants, ...hostRulesOf(constants) },
    properties: propertiesOf(room),
    ...(showMembers
      ? {
          members: live
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([holder, member]) => entryOf(holder, member, room, at)),
        }
      : {}),
    ...(large && isMember ? { member: entryOf(account, doc.members[account]!, room, at) } : {}),
    ...(isMember && host && room.placement ? { server: { host, ports: room.placement.ports } } : {}),
    ...(arbiter === undefined ? {} : { host: arbiter }),
  };
}

/** The build of a room's game server, as operators see it (the console's build table). */
export function protocolViewOf(room: Pick<Room, 'protocol'>): { protocol?: { hash: string; builtAt?: string } } {
  if (!room.protocol) return {};
  return {
    protocol: { hash: room.protocol.h, ...(room.protocol.b === undefined ? {} : { builtAt: room.protocol.b }) },
  };
}

/**
 * The room as an operator sees it at `now` (any room, private ones too): what `account` would
 * see, plus every live member of a session that lists them (a large session's are paged by
 * `GET /v1/rooms/{roomId}/members`) with its expiry, the server's address and ports whenever
 * it has been placed (`pending` until the address is known), and the arbiter's successor.
 * Players never get these: an admin token does.
 */
export function adminRoomView(room: Room, doc: SessionDocument, now: Date, account: string): SessionRoomView {
  const view = sessionRoomView(room, doc, now, account);
  const at = now.getTime();
  const address = room.state === 'ready' ? playerAddress(room) : undefined;
  const arbiter = hostView(room, doc, at, { isMember: true, ...(address === undefined ? {} : { address }) });
  const members = Object.entries(doc.members)
    .filter(([, member]) => isLiveMember(member, room, at))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([holder, member]): MemberEntry => {
      const expiresAt = expiryOf(member, room);
      return {
        ...entryOf(holder, member, room, at),
        ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
      };
    });
  return {
    ...view,
    ...(isLargeSession(constantsOf(room)) ? {} : { members }),
    ...(room.placement ? { server: { host: playerAddress(room) ?? unknownHost, ports: room.placement.ports } } : {}),
    ...(arbiter === undefined ? {} : { host: arbiter }),
    ...protocolViewOf(room),
  };
}

/** A member as the view lists it: a member without a socket for `disconnectedMs` shows inactive, written or not. */
const entryOf = (account: string, member: StoredMember, room: Room, at: number): MemberEntry => ({
  account,
  state: memberStateOf(memberAt(member, room, at).s),
  properties: { custom: member.q ?? {} },
});

/**
 * The view of a room whose document is not at hand (a 202 still spawning, a listing): the
 * room's own fields, no members.
 */
export function roomOnlyView(room: ListedRoom): SessionRoomView {
  return {
    ...toRoomView(room),
    template: room.template ?? null,
    constants: constantsViewOf(room),
    properties: propertiesOf(room),
  };
}

/** Every room response carries the change number as its entity tag (docs/api.md). */
export function roomResponse<B extends { readonly room: Pick<RoomView, 'changeNumber'> }>(
  status: number,
  body: B,
  headers: Readonly<Record<string, string>> = {},
): { status: number; body: B; headers: Record<string, string> } {
  return { status, body, headers: { ...headers, etag: formatETag(body.room.changeNumber) } };
}

/**
 * Headers of a 202 for a room still spawning: when to read it again. Deployed, a Fargate
 * server takes about a minute to start, so a client polling as fast as it can would make
 * dozens of reads per player for nothing; locally a server is up within a second.
 */
export function spawningHeaders(pollAfterS: number): Record<string, string> {
  return { 'retry-after': String(pollAfterS) };
}
