import { PlatformError } from '../errors';

export class HostNotFoundError extends PlatformError {
  override readonly name = 'HostNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(readonly hostId: string) {
    super(`No host '${hostId}'.`);
  }
}

export class RegionNotFoundError extends PlatformError {
  override readonly name = 'RegionNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(readonly region: string) {
    super(`No region '${region}'.`);
  }
}

/** A fleet change that would contradict what is there: a second host of one id, removing a busy host. */
export class FleetConflictError extends PlatformError {
  override readonly name = 'FleetConflictError';
  readonly code = 'CONFLICT';
}
