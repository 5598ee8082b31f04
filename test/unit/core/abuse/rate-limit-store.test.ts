import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { RateLimitStore, rateConditions } from '../../../../core/abuse/rate-limit-store';
import type { RateLimitPolicy } from '../../../../core/abuse/rate-limit';

const dbMock = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
const now = new Date('2026-01-01T00:01:45.250Z');
const nowMs = now.getTime();

function awsError(name: string): Error {
  return Object.assign(new Error(name), { name, $metadata: {} });
}

/** A failed condition carrying the stored log, as DynamoDB answers with ALL_OLD. */
function conditionFailed(item?: Record<string, unknown>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item ? { Item: marshall(item) } : {}),
  });
}

const inputs = () => dbMock.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => dbMock.reset());

describe('RateLimitStore.count', () => {
  it('admits the first request of a log with one conditional UpdateItem, pinned clause by clause', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const result = await new RateLimitStore(client, 'table').count('alice', policy, now);
    expect(result).toEqual({ state: 'Counted', sequence: 1 });
    expect(inputs()).toEqual([
      {
        TableName: 'table',
        Key: { pk: 'ACCOUNT#alice', sk: 'GATE#join' },
        UpdateExpression: 'SET #slot = :now, #n = :next, #type = :type, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#n) AND (attribute_not_exists(#ban) OR #ban.#until <= :now)',
        ExpressionAttributeNames: {
          '#n': 'n',
          '#slot': 's0',
          '#type': 'type',
          '#ttl': 'ttl',
          '#ban': 'ban',
          '#until': 'until',
        },
        ExpressionAttributeValues: {
          ':now': nowMs,
          ':next': 1,
          ':type': 'accountGate',
          ':ttl': Math.ceil(nowMs / 1000) + 120,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    ]);
    expect(rateConditions).toEqual({
      logIsNew: 'attribute_not_exists(#n)',
      logIsAtExpectedSequence: '#n = :n',
      slotIsFree: '(attribute_not_exists(#slot) OR #slot <= :cutoff)',
      noBanInForce: '(attribute_not_exists(#ban) OR #ban.#until <= :now)',
    });
  });

  it('uses the sequence it saw last, so the usual request is one write with the slot condition', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    await store.count('alice', policy, now);
    await store.count('alice', policy, now);
    expect(inputs()).toHaveLength(2);
    expect(inputs()[1]).toMatchObject({
      ConditionExpression:
        '#n = :n AND (attribute_not_exists(#slot) OR #slot <= :cutoff) AND (attribute_not_exists(#ban) OR #ban.#until <= :now)',
      ExpressionAttributeNames: { '#slot': 's1' },
      ExpressionAttributeValues: { ':n': 1, ':next': 2, ':cutoff': nowMs - 60_000 },
    });
  });

  it('catches up from the log the failed condition returned (no read), then admits', async () => {
    dbMock
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ n: 45, s5: nowMs - 61_000 }))
      .resolves({});
    const result = await new RateLimitStore(client, 'table').count('bob', policy, now);
    expect(result).toEqual({ state: 'Counted', sequence: 46 });
    expect(inputs()).toHaveLength(2);
    expect(inputs()[1]).toMatchObject({
      ExpressionAttributeNames: { '#slot': 's5' },
      ExpressionAttributeValues: { ':n': 45, ':next': 46 },
    });
  });

  it('refuses without another write when the returned log shows the window full; Retry-After from that slot', async () => {
    dbMock.on(UpdateCommand).rejects(conditionFailed({ n: 40, s0: nowMs - 44_500 }));
    const result = await new RateLimitStore(client, 'table').count('carol', policy, now);
    expect(result).toEqual({ state: 'Exhausted', retryAfterS: 16, freeAtMs: nowMs - 44_500 + 60_000 });
    expect(inputs()).toHaveLength(1);
  });

  it('starts a new log when the one it expected is gone (TTL collected it)', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    await store.count('dave', policy, now);
    dbMock.reset();
    dbMock.on(UpdateCommand).rejectsOnce(conditionFailed()).resolves({});
    expect(await store.count('dave', policy, now)).toEqual({ state: 'Counted', sequence: 1 });
    expect(inputs().map((input) => input.ConditionExpression)).toEqual([
      expect.stringMatching(/^#n = :n AND /),
      expect.stringMatching(/^attribute_not_exists\(#n\) AND /),
    ]);
  });

  it('keeps joins and creations on gates of their own; a changed limit keeps the gate (and its ban)', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    await store.count('alice', { ...policy, action: 'create' }, now);
    await store.count('alice', { ...policy, limit: 5 }, now);
    expect(inputs().map((input) => input.Key)).toEqual([
      { pk: 'ACCOUNT#alice', sk: 'GATE#create' },
      { pk: 'ACCOUNT#alice', sk: 'GATE#join' },
    ]);
  });

  it.each([
    ['a permanent ban', {}, { state: 'Banned' }],
    ['a ban in force', { until: nowMs + 1 }, { state: 'Banned', expiresAt: new Date(nowMs + 1).toISOString() }],
  ])('answers %s the failed condition returned as Banned, with no other write', async (_name, ban, expected) => {
    dbMock.on(UpdateCommand).rejects(conditionFailed({ n: 3, s3: nowMs - 61_000, ban }));
    expect(await new RateLimitStore(client, 'table').count('mallory', policy, now)).toEqual(expected);
    expect(inputs()).toHaveLength(1);
  });

  it('takes an ended ban the returned gate still carries for no ban: it catches up and admits', async () => {
    dbMock
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ n: 3, ban: { until: nowMs } }))
      .resolves({});
    expect(await new RateLimitStore(client, 'table').count('mallory', policy, now)).toEqual({
      state: 'Counted',
      sequence: 4,
    });
  });

  it('answers being outraced on every attempt as Contention, never a 500', async () => {
    let n = 0;
    dbMock.on(UpdateCommand).callsFake(() => Promise.reject(conditionFailed({ n: ++n })));
    const result = await new RateLimitStore(client, 'table').count('erin', { ...policy, limit: 3 }, now);
    expect(result).toMatchObject({ state: 'Contention', retryAfterS: 1 });
    expect(inputs()).toHaveLength(5);
  });

  it.each([
    'ThrottlingException',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'TransactionConflictException',
  ])('answers %s (after the SDK gave up retrying) as Contention: back off 1 s, never a 500', async (name) => {
    dbMock.on(UpdateCommand).rejects(awsError(name));
    expect(await new RateLimitStore(client, 'table').count('alice', policy, now)).toMatchObject({
      state: 'Contention',
      retryAfterS: 1,
    });
  });

  it('lets an unknown failure through as the bug it is', async () => {
    dbMock.on(UpdateCommand).rejects(awsError('ResourceNotFoundException'));
    await expect(new RateLimitStore(client, 'table').count('alice', policy, now)).rejects.toThrow(
      'ResourceNotFoundException',
    );
  });
});
