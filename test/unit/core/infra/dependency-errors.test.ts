import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import { DependencyUnavailableError } from '../../../../core/errors';
import {
  asDependencyUnavailable,
  classifyDependencyError,
  isConditionFailure,
  isTransactionContention,
  retryOnContention,
} from '../../../../core/infra/dependency-errors';

const metadata = { $metadata: { httpStatusCode: 400 } };

/** A Node socket error as the SDK's HTTP handler rejects with it (it adds `$metadata` after retries). */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code, $metadata: { attempts: 3 } });
}

function cancelled(...codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    ...metadata,
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

describe('classifyDependencyError', () => {
  it.each([
    ['connection refused', socketError('ECONNREFUSED'), 'unreachable', 2],
    ['connection reset', socketError('ECONNRESET'), 'unreachable', 2],
    ['broken pipe', socketError('EPIPE'), 'unreachable', 2],
    [
      'the HTTP handler request timeout',
      Object.assign(new Error('a request has exceeded the configured 1500 ms requestTimeout'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      }),
      'timeout',
      2,
    ],
    [
      'the socket inactivity timeout',
      Object.assign(new Error('the request socket timed out'), { name: 'TimeoutError' }),
      'timeout',
      2,
    ],
    [
      'an aborted request (deadline)',
      Object.assign(new Error('Request aborted'), { name: 'AbortError' }),
      'timeout',
      2,
    ],
    ['ThrottlingException', new ThrottlingException({ message: 'slow down', ...metadata }), 'throttled', 1],
    [
      'ProvisionedThroughputExceededException',
      new ProvisionedThroughputExceededException({ message: 'exceeded', ...metadata }),
      'throttled',
      1,
    ],
    ['RequestLimitExceeded', new RequestLimitExceeded({ message: 'limit', ...metadata }), 'throttled', 1],
    [
      'an HTTP 429 of a service with a name of its own',
      Object.assign(new Error('slow down'), { name: 'SlowerPlease', $metadata: { httpStatusCode: 429 } }),
      'throttled',
      1,
    ],
    [
      'an SQS throttling error',
      new SQSServiceException({ name: 'RequestThrottled', $fault: 'client', message: 'throttled', ...metadata }),
      'throttled',
      1,
    ],
    [
      'DynamoDB InternalServerError',
      new InternalServerError({ message: 'oops', $metadata: { httpStatusCode: 500 } }),
      'server-error',
      1,
    ],
    [
      'any 5xx answer',
      new SQSServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        message: 'unavailable',
        $metadata: { httpStatusCode: 503 },
      }),
      'server-error',
      1,
    ],
    ['a transaction cancelled by throttling', cancelled('None', 'ThrottlingError'), 'contention', 1],
    ['a transaction cancelled by a conflict', cancelled('TransactionConflict', 'None', 'None'), 'contention', 1],
    [
      'a write colliding with a transaction',
      new TransactionConflictException({ message: 'conflict', ...metadata }),
      'contention',
      1,
    ],
    ['a missing table', new ResourceNotFoundException({ message: 'no table', ...metadata }), 'missing-table', 2],
    ['an outage wrapped as a cause', new Error('wrapped', { cause: socketError('ECONNREFUSED') }), 'unreachable', 2],
  ])('%s → %s, Retry-After %i s', (_name, error, kind, retryAfterS) => {
    expect(classifyDependencyError(error)).toEqual({ kind, retryAfterS });
  });

  it.each([
    ['a failed condition', new ConditionalCheckFailedException({ message: 'no', ...metadata })],
    ['a transaction with a failed condition', cancelled('ConditionalCheckFailed', 'ThrottlingError')],
    ['a transaction cancelled without reasons', cancelled()],
    ['a validation error (a bug)', Object.assign(new Error('bad'), { name: 'ValidationException', ...metadata })],
    ['a plain programming error', new TypeError('x is undefined')],
    ['a non-error', 'boom'],
  ])('%s is not a dependency outage', (_name, error) => {
    expect(classifyDependencyError(error)).toBeUndefined();
    expect(asDependencyUnavailable(error)).toBeUndefined();
  });
});

describe('isTransactionContention / isConditionFailure', () => {
  it.each([
    [cancelled('ThrottlingError'), true, false],
    [cancelled('None', 'TransactionConflict'), true, false],
    [cancelled('ConditionalCheckFailed', 'None'), false, true],
    [cancelled('ConditionalCheckFailed', 'TransactionConflict'), false, true],
    [new ConditionalCheckFailedException({ message: 'no', ...metadata }), false, true],
  ])('%#: contention %s, condition failure %s', (error, contention, conditionFailure) => {
    expect(isTransactionContention(error)).toBe(contention);
    expect(isConditionFailure(error)).toBe(conditionFailure);
  });
});

describe('asDependencyUnavailable', () => {
  it('answers 503 UNAVAILABLE in the API shape with Retry-After and the reason, hiding the SDK message', () => {
    const error = asDependencyUnavailable(socketError('ECONNREFUSED'));

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error?.status).toBe(503);
    expect(error?.code).toBe('UNAVAILABLE');
    expect(error?.headers).toEqual({ 'retry-after': '2' });
    expect(error?.details).toEqual({ reason: 'unreachable' });
    expect(error?.message).not.toContain('127.0.0.1');
  });
});

describe('retryOnContention', () => {
  const noSleep = async () => undefined;

  it('tries a throttled write again and returns its result once it goes through', async () => {
    const write = jest.fn().mockRejectedValueOnce(cancelled('ThrottlingError')).mockResolvedValueOnce('written');

    await expect(retryOnContention(write, { maxAttempts: 3, sleep: noSleep })).resolves.toBe('written');
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('gives up after maxAttempts with UNAVAILABLE', async () => {
    const write = jest.fn().mockRejectedValue(cancelled('TransactionConflict'));

    await expect(retryOnContention(write, { maxAttempts: 3, sleep: noSleep })).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    expect(write).toHaveBeenCalledTimes(3);
  });

  it('lets any other failure through at once, unchanged', async () => {
    const failure = cancelled('ConditionalCheckFailed');
    const write = jest.fn().mockRejectedValue(failure);

    await expect(retryOnContention(write, { maxAttempts: 3, sleep: noSleep })).rejects.toBe(failure);
    expect(write).toHaveBeenCalledTimes(1);
  });
});

describe('classifyDependencyError with errors rewrapped by the SDK', () => {
  it('reads the socket error code from the message when the SDK kept only that', () => {
    const wrapped = new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:39875');

    expect(classifyDependencyError(wrapped)).toEqual({ kind: 'unreachable', retryAfterS: 2 });
  });
});
