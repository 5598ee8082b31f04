import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { httpHandler, type HttpEvent, type HttpDependencies } from '../../../../lambdas/http/middleware';

const context = { getRemainingTimeInMillis: () => 30_000 } as Context;
const deps = (): HttpDependencies => ({ maxBodyBytes: 1024, verifyToken: async () => ({ account: 'a', scopes: [] }) });
const event = {
  version: '2.0',
  routeKey: 'GET /things',
  rawPath: '/things',
  rawQueryString: '',
  headers: {},
  isBase64Encoded: false,
  requestContext: { requestId: 'req-1', http: { method: 'GET', path: '/things', sourceIp: '127.0.0.1' } },
} as unknown as HttpEvent;

function failingWith(error: unknown) {
  return httpHandler(
    { auth: 'public' },
    async () => {
      throw error;
    },
    deps,
  );
}

describe('httpHandler error mapping of dependency failures', () => {
  it.each([
    [
      'connection refused',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:443'), { code: 'ECONNREFUSED' }),
      'unreachable',
      '2',
    ],
    [
      'a request timeout',
      Object.assign(new Error('exceeded 1500 ms'), { name: 'TimeoutError', code: 'ETIMEDOUT' }),
      'timeout',
      '2',
    ],
    [
      'throughput exceeded',
      new ProvisionedThroughputExceededException({ message: 'slow', $metadata: {} }),
      'throttled',
      '1',
    ],
    [
      'a transaction cancelled by throttling',
      new TransactionCanceledException({
        message: 'cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'ThrottlingError' }],
      }),
      'contention',
      '1',
    ],
  ])('%s → 503 UNAVAILABLE with Retry-After, never 500', async (_name, error, reason, retryAfter) => {
    const result = await failingWith(error)(event, context);

    expect(result.statusCode).toBe(503);
    expect(result.headers).toMatchObject({ 'retry-after': retryAfter, 'x-request-id': 'req-1' });
    const body = JSON.parse(result.body ?? '');
    expect(body).toEqual({ error: { code: 'UNAVAILABLE', message: expect.any(String), details: { reason } } });
    expect(result.body).not.toContain('10.0.0.7');
  });

  it('still answers a bug with a generic 500', async () => {
    const result = await failingWith(new TypeError('x is undefined'))(event, context);

    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '').error.code).toBe('INTERNAL');
  });
});
