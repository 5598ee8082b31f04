import { generateRegistrationKey, hashRegistrationKey } from './registration-keys';
import type { Reservation } from './member';
import type { Room, RoomSettings } from './model';
import type { RoomStore } from './room-store';
import { asksForArbiter, type SessionConstants, type SessionProperties } from './session-model';
import { peerHostedReservedMsDefault } from '../templates/template';

export interface CreatePeerHostedCommand {
  readonly account: string;
  readonly scopes: readonly string[];
  readonly region: string;
  readonly settings: RoomSettings;
  readonly session: {
    readonly template: string;
    readonly constants: SessionConstants;
    readonly properties: SessionProperties;
  };
}

export interface CreatePeerHostedDependencies {
  readonly rooms: Pick<RoomStore, 'createWithMember'>;
  readonly now: () => Date;
  readonly newRoomId: () => string;
}

/**
 * A peer-hosted session: no game server, so nothing spawns and nothing heartbeats. The room
 * is `ready` at once, with empty `gameId` and `version` (it has no configuration), and the
 * creator's reservation carries no host or ports: the members connect to each other and set
 * themselves active (`PATCH …/members/me`). One PutItem, like every room's creation.
 */
export async function createPeerHostedSession(
  command: CreatePeerHostedCommand,
  deps: CreatePeerHostedDependencies,
): Promise<{ readonly room: Room; readonly reservation: Reservation }> {
  const created = deps.now();
  const at = created.toISOString();
  const { constants } = command.session;
  const reservedMs = constants.timeouts.reservedMs;
  const room: Room = {
    roomId: deps.newRoomId(),
    gameId: '',
    version: '',
    region: command.region,
    state: 'ready',
    settings: command.settings,
    maxPlayers: constants.maxMembers,
    players: 1,
    changeNumber: 1,
    createdAt: at,
    updatedAt: at,
    readyAt: at,
    owner: command.account,
    // Only what an answer shows for a reservation that never times out (reservedMs null).
    reservationTimeoutS: Math.ceil((reservedMs ?? peerHostedReservedMsDefault) / 1000),
    spawnDeadline: at,
    hosting: 'peerHosted',
    template: command.session.template,
    constants,
    properties: command.session.properties,
    // The creator arbitrates first, when the template asks for an arbiter; its silence is counted from the creation.
    ...(asksForArbiter(constants) ? { host: { epoch: 1, account: command.account, seenAt: created.getTime() } } : {}),
  };
  const key = generateRegistrationKey();
  await deps.rooms.createWithMember(room, {
    account: command.account,
    keyHash: hashRegistrationKey(key),
    scopes: command.scopes,
    createdAt: at,
  });
  const expiry = created.getTime() + (reservedMs ?? room.reservationTimeoutS * 1000);
  return { room, reservation: { key, expiresAt: new Date(expiry).toISOString() } };
}
