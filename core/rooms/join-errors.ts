import { PlatformError } from '../errors';

export class RoomFullError extends PlatformError {
  override readonly name = 'RoomFullError';
  readonly code = 'ROOM_FULL';
  constructor(readonly roomId: string) {
    super(`Room '${roomId}' has no free slot.`, { details: { roomId } });
  }
}

export class RoomNotJoinableError extends PlatformError {
  override readonly name = 'RoomNotJoinableError';
  readonly code = 'NOT_JOINABLE';
  constructor(
    readonly roomId: string,
    reason: string,
  ) {
    super(`Room '${roomId}' cannot be joined: ${reason}.`, { details: { roomId, reason } });
  }
}
