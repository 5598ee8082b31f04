import { PlatformError } from '../errors';

/** Only the room's owner commands its game server and reads its messages. 403. */
export class NotRoomOwnerError extends PlatformError {
  override readonly name = 'NotRoomOwnerError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Only the owner of room '${roomId}' may send it commands or read its messages.`);
  }
}

/** A command outside the room's configuration `commands` whitelist. 403. */
export class CommandNotAllowedError extends PlatformError {
  override readonly name = 'CommandNotAllowedError';
  readonly code = 'FORBIDDEN';
  constructor(command: string, allowed: readonly string[]) {
    super(
      allowed.length === 0
        ? `Command '${command}' is not allowed: this room's configuration allows no commands.`
        : `Command '${command}' is not allowed: this room's configuration allows ${allowed.map((c) => `'${c}'`).join(', ')}.`,
      { details: { allowed: [...allowed] } },
    );
  }
}

/** The room has no game server to take a command: still spawning, ended, or peer-hosted. 409. */
export class RoomNotReadyError extends PlatformError {
  override readonly name = 'RoomNotReadyError';
  readonly code = 'ROOM_NOT_READY';
  constructor(roomId: string, why: string) {
    super(`Room '${roomId}' cannot take commands: ${why}`);
  }
}

export class CommandNotFoundError extends PlatformError {
  override readonly name = 'CommandNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(roomId: string, commandId: string) {
    super(`Room '${roomId}' has no command '${commandId}'.`);
  }
}
