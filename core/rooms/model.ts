import type { GameSettings, Placement } from '../gameservers/game-server';
import type { FailureReason } from '../protocol/controller-messages';
import type { Joinability, SessionConstants } from './session-model';
import type { StoredProtocol } from '../versions/protocol';

/** A room is one game server instance and the players it holds. */
export const roomStates = ['spawning', 'ready', 'failed', 'closed'] as const;
export type RoomState = (typeof roomStates)[number];

export type RoomSettings = GameSettings;

/**
 * Why a room failed: a sidecar's report, or the platform's own evidence (`spawn-failed`: the
 * spawner refused; `sidecar-lost`: the local fleet saw the sidecar die without a report, or
 * found no server for the room at start; `host-lost`: a session without `migrateHost` whose
 * member host fell silent, ended by a member's claim or by the sweeper; `closed-by-admin`: an
 * operator closed it, `POST /v1/admin/rooms/{roomId}/close`; these two end the room `closed`).
 */
export type RoomFailureReason =
  FailureReason | 'spawn-failed' | 'sidecar-lost' | 'assign-refused' | 'host-lost' | 'closed-by-admin';

/** Where the room's server runs (the spawner's answer). */
export type { Placement };

export interface Room {
  readonly roomId: string;
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
  readonly state: RoomState;
  readonly settings: RoomSettings;
  readonly maxPlayers: number;
  /** Live slots: permanent members plus unexpired reservations. */
  readonly players: number;
  /** Bumped by every write to the room. */
  readonly changeNumber: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Who asked for the room. */
  readonly owner: string;
  readonly reservationTimeoutS: number;
  /** Past this instant a room still `spawning` has failed, whatever else says so. */
  readonly spawnDeadline: string;
  readonly placement?: Placement;
  /**
   * Where players connect, set with `ready` (core/gameservers/server-address.ts): a room is
   * never ready to players without it. Absent on older rooms: the placement's host.
   */
  readonly address?: string;
  readonly failureReason?: RoomFailureReason;
  readonly lastHeartbeatAt?: string;
  /** Matchmaking bucket (hash of game, version, region and criteria) the room was made for. */
  readonly bucket?: string;
  /**
   * A warm-pool server waiting for a room (core/pool/warm-pool.ts): nobody's room yet, closed
   * to joins, in no listing, exempt from the empty-room grace. Absent once a create took it.
   */
  readonly standby?: true;
  /** The `inited` request that made the room ready, so a redelivery gets the same answer. */
  readonly initedBy?: string;
  /**
   * The configuration's `serverScopes` the room was created with (privileged ones dropped):
   * the ceiling of every token minted for this room. Absent on older rooms: no scopes.
   */
  readonly serverScopes?: readonly string[];
  /**
   * The configuration's `commands` whitelist the room was created with: what its sidecar
   * relays, so what its owner may send. Absent on older rooms: the configuration's.
   */
  readonly commands?: readonly string[];
  /** When `inited` made the room ready: reservations made while it spawned count from here. */
  readonly readyAt?: string;
  /** The template's constants (immutable). Absent on older rooms: the default template. */
  readonly constants?: SessionConstants;
  /** Room properties members write (docs/api.md "Session documents"). */
  readonly properties?: { readonly joinability?: Joinability; readonly custom?: Record<string, unknown> };
  /** The template the session was made from; null or absent: the configuration's default template. */
  readonly template?: string | null;
  /** `peerHosted`: a session without a game server (no spawn, no heartbeat). Absent: dedicated. */
  readonly hosting?: 'peerHosted';
  /** When (epoch ms) the write that removed the last member ran: the start of `sessionEmptyMs`. */
  readonly emptySince?: number;
  /**
   * The cost bounds the room was created with (its configuration's, else the deployment's):
   * kept on the room so the sweeper judges it without reading its configuration.
   */
  readonly bounds?: RoomBounds;
  /**
   * The room's arbiter (stored as `host`: `{ e, a?, s, r? }`, core/rooms/room-item.ts). Absent
   * on older rooms: no arbiter.
   */
  readonly host?: RoomHost;
  /**
   * The build of the room's game server (its `inited` `protocol`: set hash and `builtAt`;
   * docs/versions.md). Absent: the server reported none, and any client may join.
   */
  readonly protocol?: StoredProtocol;
  /**
   * What the room's server was started from (core/gameservers/deployment.ts `deploymentOf` of
   * its configuration then): `check_deployment` compares it with the configuration's now.
   */
  readonly deployment?: string;
  /** `false`: the configuration turned the protocol check off when the room was made (debugging). */
  readonly protocolCheck?: false;
}

/** docs/api.md "Live sessions": who arbitrates the room, fenced by its epoch. */
export interface RoomHost {
  /** The fencing token: every election moves it on; every arbiter write names it. */
  readonly epoch: number;
  /** The member that is the arbiter; absent: the dedicated room's game server. */
  readonly account?: string;
  /** When (epoch ms) the arbiter was last heard from: its writes and its socket's pings. */
  readonly seenAt: number;
  /** Unreachable reports of this epoch: reporter → when (epoch ms). */
  readonly reports?: Readonly<Record<string, number>>;
}

/** The stored shape of `Room.host` (short names: it rides on every write of the room item). */
export interface StoredHost {
  readonly e: number;
  readonly a?: string;
  readonly s: number;
  readonly r?: Readonly<Record<string, number>>;
}

export function storedHost(host: RoomHost): StoredHost {
  return {
    e: host.epoch,
    ...(host.account === undefined ? {} : { a: host.account }),
    s: host.seenAt,
    ...(host.reports === undefined ? {} : { r: host.reports }),
  };
}

export function hostOf(stored: StoredHost): RoomHost {
  return {
    epoch: stored.e,
    ...(stored.a === undefined ? {} : { account: stored.a }),
    seenAt: stored.s,
    ...(stored.r === undefined || Object.keys(stored.r).length === 0 ? {} : { reports: stored.r }),
  };
}

/** docs/cost-bounds.md */
export interface RoomBounds {
  /** A ready room with no live member this long is ended. */
  readonly emptyGraceS: number;
  /** Counted from creation: past it the room is ended, players or not. */
  readonly maxLifetimeS: number;
}

/**
 * The fields a room listing shows (`GET /v1/rooms`, matchmaking filters): all that the
 * listing index (gsi2) copies of a room. Not the members map: a join changes `players`, so
 * every join rewrites the index entry, and that entry stays one small item instead of the
 * whole session document.
 */
export const listedRoomFields = [
  'roomId',
  'gameId',
  'version',
  'region',
  'state',
  'settings',
  'maxPlayers',
  'players',
  'changeNumber',
  'failureReason',
  'reservationTimeoutS',
  'template',
  'constants',
  'properties',
] as const satisfies readonly (keyof Room)[];

export type ListedRoom = Pick<Room, (typeof listedRoomFields)[number]>;

/** What every API answer shows of a room: never keys, tokens or internal bookkeeping. */
export interface RoomView {
  readonly roomId: string;
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
  readonly state: RoomState;
  readonly settings: RoomSettings;
  readonly maxPlayers: number;
  readonly players: number;
  readonly changeNumber: number;
  readonly failureReason?: string;
}

export function toRoomView(room: ListedRoom): RoomView {
  return {
    roomId: room.roomId,
    gameId: room.gameId,
    version: room.version,
    region: room.region,
    state: room.state,
    settings: room.settings,
    maxPlayers: room.maxPlayers,
    players: room.players,
    changeNumber: room.changeNumber,
    ...(room.failureReason ? { failureReason: room.failureReason } : {}),
  };
}

/** Live rooms can still change state; failed and closed rooms never come back. */
export function isLive(state: RoomState): boolean {
  return state === 'spawning' || state === 'ready';
}
