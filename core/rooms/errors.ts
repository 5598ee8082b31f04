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
