import { PlatformError } from '../errors';

export class RoomNotFoundError extends PlatformError {
  override readonly name = 'RoomNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(readonly roomId: string) {
    super(`Room '${roomId}' does not exist.`);
  }
}

export class RoomAlreadyExistsError extends PlatformError {
  override readonly name = 'RoomAlreadyExistsError';
  readonly code = 'BAD_REQUEST';
  constructor(readonly roomId: string) {
    super(`Room '${roomId}' already exists.`);
  }
}

/** An operator's close of a room that has already ended (failed, or closed by anyone). */
export class RoomAlreadyEndedError extends PlatformError {
  override readonly name = 'RoomAlreadyEndedError';
  readonly code = 'CONFLICT';
  constructor(
    readonly roomId: string,
    state: string,
    failureReason?: string,
  ) {
    super(`Room '${roomId}' has already ended (${state}${failureReason ? `: ${failureReason}` : ''}).`, {
      details: { roomId, state, ...(failureReason ? { failureReason } : {}) },
    });
  }
}
