/** A room is one game server instance and the players it holds. */
export const roomStates = ['spawning', 'ready', 'failed', 'closed'] as const;
export type RoomState = (typeof roomStates)[number];

export type RoomSettings = Record<string, unknown>;

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
}

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
}

export function toRoomView(room: Room): RoomView {
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
  };
}
