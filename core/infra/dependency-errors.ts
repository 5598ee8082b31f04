import { jitteredBackoffMs, writeContentionBackoff } from './clock';
import { DependencyUnavailableError } from '../errors';

/**
 * Why a call to a dependency (DynamoDB, SQS, ECS, …) failed in a way the caller did not
 * cause and that goes away by itself. Everything else an SDK throws is either a domain
 * answer the store already mapped (a failed condition) or a bug.
 */
type DependencyFailureKind =
  /** Connection refused, reset or dropped: the service (or the emulator) is not there. */
  | 'unreachable'
  /** No answer within the client's connection or request timeout, or the caller's deadline. */
  | 'timeout'
  /** The service refused the load: throttling, provisioned throughput, request limit. */
  | 'throttled'
  /** A 5xx answer from the service. */
  | 'server-error'
  /** A transaction cancelled only by conflicts with other transactions or by throttling. */
  | 'contention'
  /** The table does not exist (yet): it is being created, for instance after an emulator restart. */
  | 'missing-table';

export interface DependencyFailure {
  readonly kind: DependencyFailureKind;
  /** Seconds a client should wait before trying again (`Retry-After`). */
  readonly retryAfterS: number;
}

/** Node's codes for a connection that could not be made or broke under us. */
const connectionErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
const timeoutErrorCodes = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);
const timeoutErrorNames = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);

/** The throttling error names of AWS services (the SDK's own list, plus DynamoDB's). */
const throttlingErrorNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'RequestThrottled',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
]);
const serverErrorNames = new Set(['InternalServerError', 'InternalFailure', 'ServiceUnavailable', 'InternalError']);
/** A single write that collided with a running transaction, or a transaction that is still running. */
const conflictErrorNames = new Set(['TransactionConflictException', 'TransactionInProgressException']);
/** Reasons that cancel a transaction without saying anything about the data. */
const contentionReasonCodes = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
  readonly $retryable?: { readonly throttling?: unknown };
  readonly CancellationReasons?: readonly { readonly Code?: string }[];
  readonly cause?: unknown;
}

const retryAfter: Record<DependencyFailureKind, number> = {
  unreachable: 2,
  timeout: 2,
  throttled: 1,
  'server-error': 1,
  contention: 1,
  'missing-table': 2,
};

/**
 * Whether a transaction was cancelled by contention only: every reason is a conflict,
 * throttling or `None` (an item that was fine), and at least one is not `None`. A
 * `ConditionalCheckFailed` among them is an answer about the data and is never contention.
 */
export function isTransactionContention(error: unknown): boolean {
  const shape = error as SdkErrorShape | undefined;
  if (shape?.name !== 'TransactionCanceledException') return false;
  const codes = (shape.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return (
    codes.some((c) => contentionReasonCodes.has(c)) && codes.every((c) => c === 'None' || contentionReasonCodes.has(c))
  );
}

/** Whether a conditional write (or one item of a transaction) failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  const shape = error as SdkErrorShape | undefined;
  if (shape?.name === 'ConditionalCheckFailedException') return true;
  return (
    shape?.name === 'TransactionCanceledException' &&
    (shape.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed')
  );
}

/** Whether item `index` of a cancelled transaction is the one whose condition failed. */
export function conditionFailedAt(error: unknown, index: number): boolean {
  const shape = error as SdkErrorShape | undefined;
  return shape?.CancellationReasons?.[index]?.Code === 'ConditionalCheckFailed';
}

/**
 * Node names the code in a socket error's message (`connect ECONNREFUSED 127.0.0.1:8000`).
 * The SDK's retry layer rewraps an error from another realm (a jest sandbox, a worker) as
 * `AWS SDK error wrapper for Error: connect ECONNREFUSED …`, keeping only that message.
 */
function codeInMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  const match = /\b(E[A-Z_]{4,})\b/.exec(message);
  return match?.[1] ?? '';
}

function classifyOne(error: SdkErrorShape & { readonly message?: unknown }): DependencyFailureKind | undefined {
  const name = typeof error.name === 'string' ? error.name : '';
  const code = typeof error.code === 'string' ? error.code : codeInMessage(error.message);
  if (connectionErrorCodes.has(code)) return 'unreachable';
  if (timeoutErrorNames.has(name) || timeoutErrorCodes.has(code)) return 'timeout';
  const status = error.$metadata?.httpStatusCode;
  if (throttlingErrorNames.has(name) || error.$retryable?.throttling === true || status === 429) return 'throttled';
  if (isTransactionContention(error) || conflictErrorNames.has(name)) return 'contention';
  if (name === 'ResourceNotFoundException') return 'missing-table';
  if (serverErrorNames.has(name) || error.$fault === 'server' || (typeof status === 'number' && status >= 500))
    return 'server-error';
  return undefined;
}

/**
 * The one place that decides whether an SDK failure means "a dependency is busy or down,
 * retry later", and which: every retry and every 503 asks here, never a list of error names
 * of its own. Looks through `cause` chains (a few links) because some callers wrap errors.
 *
 * @example
 * classifyDependencyError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
 * // → { kind: 'unreachable', retryAfterS: 2 }
 */
export function classifyDependencyError(error: unknown): DependencyFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const kind = classifyOne(current as SdkErrorShape);
    if (kind) return { kind, retryAfterS: retryAfter[kind] };
    current = (current as SdkErrorShape).cause;
  }
  return undefined;
}

const messages: Record<DependencyFailureKind, string> = {
  unreachable: 'A service the platform depends on cannot be reached',
  timeout: 'A service the platform depends on did not answer in time',
  throttled: 'A service the platform depends on is throttling requests',
  'server-error': 'A service the platform depends on failed',
  contention: 'The request kept colliding with concurrent writes',
  'missing-table': 'The platform storage is not ready',
};

/**
 * The API's 503 `UNAVAILABLE` for an SDK failure that is a dependency outage, or
 * `undefined` if it is not one (then it is a bug or a domain answer, never retried).
 */
export function asDependencyUnavailable(error: unknown): DependencyUnavailableError | undefined {
  if (error instanceof DependencyUnavailableError) return error;
  const failure = classifyDependencyError(error);
  if (!failure) return undefined;
  return new DependencyUnavailableError(`${messages[failure.kind]}; retry in ${failure.retryAfterS} s.`, {
    retryAfterS: failure.retryAfterS,
    cause: error,
    details: { reason: failure.kind },
  });
}

/**
 * Runs a write again while it fails by contention only (transaction conflicts, throttling
 * the SDK does not retry itself), with jittered backoff; after `maxAttempts` the last
 * failure leaves as `UNAVAILABLE`. Any other failure leaves at once, unchanged.
 */
export async function retryOnContention<T>(
  write: () => Promise<T>,
  options: { maxAttempts: number; sleep: (ms: number) => Promise<void> },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const failure = classifyDependencyError(error);
      const retryable = failure?.kind === 'contention' || failure?.kind === 'throttled';
      if (!retryable) throw error;
      if (attempt >= options.maxAttempts) throw asDependencyUnavailable(error) ?? error;
      await options.sleep(jitteredBackoffMs(attempt, writeContentionBackoff));
    }
  }
}
