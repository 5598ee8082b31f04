/**
 * The error codes of the HTTP contract (docs/api.md) and the status each one answers with.
 * Every failure a caller can cause is a `PlatformError` with one of these codes; anything
 * else is a bug and answers a generic 500 without detail.
 */
export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  BANNED: 403,
  NOT_FOUND: 404,
  ROOM_FULL: 409,
  NOT_JOINABLE: 409,
  PROTOCOL_MISMATCH: 409,
  CONFLICT: 409,
  ROOM_NOT_READY: 409,
  /** A claim to arbitrate a room whose arbiter is not silent (docs/api.md "Live sessions"). */
  HOST_ALIVE: 409,
  /** An arbiter write (`X-Host-Epoch`) by a caller that is not that epoch's host, or of an epoch moved on. */
  STALE_EPOCH: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SPAWN_FAILED: 502,
  NO_HEALTHY_HOST: 503,
  UNAVAILABLE: 503,
  SPAWN_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export abstract class PlatformError extends Error {
  abstract readonly code: ErrorCode;
  /** Safe to show to the caller: never a key, token or stack. */
  readonly details?: unknown;
  /** Extra response headers (for example `Retry-After`). */
  readonly headers?: Record<string, string>;

  constructor(message: string, options?: { details?: unknown; cause?: unknown; headers?: Record<string, string> }) {
    super(message, { cause: options?.cause });
    this.details = options?.details;
    this.headers = options?.headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export interface FieldIssue {
  /** Dotted path of the failing field, prefixed by where it came from (`body.maxPlayers`). */
  readonly field: string;
  readonly message: string;
}

export class RequestInvalidError extends PlatformError {
  override readonly name = 'RequestInvalidError';
  readonly code = 'BAD_REQUEST';
  constructor(message: string, issues: readonly FieldIssue[] = []) {
    super(message, issues.length > 0 ? { details: { fields: issues } } : undefined);
  }
}

export class RequestTooLargeError extends PlatformError {
  override readonly name = 'RequestTooLargeError';
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(limitBytes: number) {
    super(`The request body exceeds the limit of ${limitBytes} bytes.`, { details: { limitBytes } });
  }
}

export class AuthTokenInvalidError extends PlatformError {
  override readonly name = 'AuthTokenInvalidError';
  readonly code = 'UNAUTHORIZED';
}

export class AuthScopeMissingError extends PlatformError {
  override readonly name = 'AuthScopeMissingError';
  readonly code = 'FORBIDDEN';
  constructor(scope: string) {
    super(`This operation needs the '${scope}' scope.`, { details: { requiredScope: scope } });
  }
}

export class RouteNotFoundError extends PlatformError {
  override readonly name = 'RouteNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(method: string, path: string) {
    super(`No route for ${method} ${path}.`);
  }
}

/**
 * A dependency (DynamoDB, SQS, the spawner's API) is down, throttling, or did not answer in
 * time, or the request ran out of its own deadline. Safe to retry after `Retry-After`.
 */
export class DependencyUnavailableError extends PlatformError {
  override readonly name = 'DependencyUnavailableError';
  readonly code = 'UNAVAILABLE';
  constructor(message: string, options: { retryAfterS?: number; cause?: unknown; details?: unknown } = {}) {
    super(message, {
      cause: options.cause,
      details: options.details,
      headers: { 'retry-after': String(options.retryAfterS ?? 1) },
    });
  }
}
