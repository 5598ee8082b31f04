import { PlatformError } from '../errors';

/** The `Idempotency-Key` header is empty, longer than 64 characters or not printable ASCII. 400. */
export class IdempotencyKeyInvalidError extends PlatformError {
  override readonly name = 'IdempotencyKeyInvalidError';
  readonly code = 'BAD_REQUEST';
  constructor() {
    super('Idempotency-Key must be 1 to 64 printable ASCII characters.', {
      details: { fields: [{ field: 'header.idempotency-key', message: 'must be 1 to 64 printable ASCII characters' }] },
    });
  }
}

/** The key was first used for another request (other route, room or body). 400, as Stripe answers it. */
export class IdempotencyKeyReusedError extends PlatformError {
  override readonly name = 'IdempotencyKeyReusedError';
  readonly code = 'BAD_REQUEST';
  constructor() {
    super(
      'This Idempotency-Key was already used for a different request in the last 10 minutes; use a new key for a new request.',
      { details: { fields: [{ field: 'header.idempotency-key', message: 'was used for a different request' }] } },
    );
  }
}

/**
 * The first request with this key is still running. 503 `UNAVAILABLE` with `Retry-After`: not
 * stored, so the retry gets the first request's answer once it is there.
 */
export class IdempotencyRequestInProgressError extends PlatformError {
  override readonly name = 'IdempotencyRequestInProgressError';
  readonly code = 'UNAVAILABLE';
  constructor(retryAfterS: number) {
    super(`A request with this Idempotency-Key is still in progress. Retry in ${retryAfterS} s.`, {
      headers: { 'retry-after': String(retryAfterS) },
      details: { retryAfterS },
    });
  }
}

/** The stored answer cannot be decrypted (the platform's signing key changed since). 400: use a new key. */
export class IdempotencyRecordUnreadableError extends PlatformError {
  override readonly name = 'IdempotencyRecordUnreadableError';
  readonly code = 'BAD_REQUEST';
  constructor(cause: unknown) {
    super('The answer stored for this Idempotency-Key can no longer be read; use a new key.', {
      cause,
      details: { fields: [{ field: 'header.idempotency-key', message: 'its stored answer can no longer be read' }] },
    });
  }
}
