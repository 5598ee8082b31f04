import { PlatformError } from '../errors';

/** A registration key that is unknown, expired, already used or for another room. */
export class RegistrationKeyRejectedError extends PlatformError {
  override readonly name = 'RegistrationKeyRejectedError';
  readonly code = 'FORBIDDEN';
}
