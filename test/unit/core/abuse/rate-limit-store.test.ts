import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { RateLimitStore, maxAttempts, slotIsFreeCondition } from '../../../../core/abuse/rate-limit-store';
import { lowestFreeSlot, type RateLimitPolicy } from '../../../../core/abuse/rate-limit';

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

/** A store that takes the lowest free slot, so the slots it writes can be pinned. */
const lowest = () => new RateLimitStore(client, 'table', lowestFreeSlot);
/** The stored log with slots `s0 … s<n−1>` all holding `ms`. */
const slotsAt = (n: number, ms: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, ms]));

const inputs = () => dbMock.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => dbMock.reset());

describe('RateLimitStore.count', () => {
  it('admits with one conditional UpdateItem on one slot, no counter, pinned clause by clause', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const result = await lowest().count('alice', policy, now);
    expect(result).toEqual({ state: 'Counted', slot: 0 });
    expect(inputs()).toEqual([
      {
        TableName: 'table',
        Key: { pk: 'ACCOUNT#alice', sk: 'RATE#join#20' },
        UpdateExpression: 'SET #slot = :now, #type = :type, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#slot) OR #slot <= :cutoff',
        ExpressionAttributeNames: { '#slot': 's0', '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':now': nowMs,
          ':cutoff': nowMs - 60_000,
          ':type': 'rateLog',
          ':ttl': Math.ceil(nowMs / 1000) + 120,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    ]);
    expect(slotIsFreeCondition).toBe('attribute_not_exists(#slot) OR #slot <= :cutoff');
  });

  it('spreads parallel requests of one account over random slots in [0, limit), so they need not collide', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    const results = await Promise.all(Array.from({ length: 40 }, () => store.count('alice', policy, now)));
    expect(results.every((r) => r.state === 'Counted')).toBe(true);
    const slots = inputs().map((input) => input.ExpressionAttributeNames?.['#slot']);
    expect(slots).toHaveLength(40);
    for (const slot of slots) expect(slot).toMatch(/^s(1?[0-9])$/);
    // 40 picks among 20 slots all landing on one slot has probability 20⁻³⁹.
    expect(new Set(slots).size).toBeGreaterThan(1);
  });

  it('takes a slot its cache shows free, never one it admitted into within the window', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    const three = { ...policy, limit: 3 };
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await store.count('alice', three, now));
    expect(results.map((r) => (r.state === 'Counted' ? r.slot : -1)).sort()).toEqual([0, 1, 2]);
    // The fourth is refused from the cache alone: slot times only grow, so it cannot be wrong.
    expect(await store.count('alice', three, new Date(nowMs + 59_999))).toEqual({ state: 'Exhausted', retryAfterS: 1 });
    expect(inputs()).toHaveLength(3);
  });

  it('on a lost slot, picks another one free in the log the failed condition returned (no read), then admits', async () => {
    dbMock
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ ...slotsAt(5, nowMs - 1_000), s6: nowMs - 30_000, s7: nowMs - 61_000 }))
      .resolves({});
    const result = await lowest().count('bob', policy, now);
    expect(result).toEqual({ state: 'Counted', slot: 5 });
    expect(inputs().map((input) => input.ExpressionAttributeNames?.['#slot'])).toEqual(['s0', 's5']);
  });

  it('refuses without another write when the returned log is full; Retry-After from its oldest slot', async () => {
    dbMock.on(UpdateCommand).rejects(conditionFailed({ ...slotsAt(20, nowMs - 10_000), s13: nowMs - 44_500 }));
    const store = lowest();
    expect(await store.count('carol', policy, now)).toEqual({ state: 'Exhausted', retryAfterS: 16 });
    expect(inputs()).toHaveLength(1);
    // What the failed condition showed is remembered: the next refusal needs no write at all.
    expect(await store.count('carol', policy, new Date(nowMs + 1_000))).toEqual({
      state: 'Exhausted',
      retryAfterS: 15,
    });
    expect(inputs()).toHaveLength(1);
  });

  it('forgets the log used longest ago beyond 1,000, and then simply writes again', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = lowest();
    const one = { ...policy, limit: 1 };
    await store.count('alice', one, now);
    await store.count('alice', one, now);
    expect(inputs()).toHaveLength(1);
    for (let i = 0; i < 1_000; i++) await store.count(`other-${i}`, one, now);
    dbMock.reset();
    dbMock.on(UpdateCommand).rejects(conditionFailed({ s0: nowMs }));
    expect(await store.count('alice', one, now)).toEqual({ state: 'Exhausted', retryAfterS: 60 });
    expect(inputs()).toHaveLength(1);
  });

  it('keeps joins, creations and each limit on logs of their own', async () => {
    dbMock.on(UpdateCommand).resolves({});
    const store = new RateLimitStore(client, 'table');
    await store.count('alice', { ...policy, action: 'create' }, now);
    await store.count('alice', { ...policy, limit: 5 }, now);
    expect(inputs().map((input) => input.Key)).toEqual([
      { pk: 'ACCOUNT#alice', sk: 'RATE#create#20' },
      { pk: 'ACCOUNT#alice', sk: 'RATE#join#5' },
    ]);
  });

  it('answers being outraced on every attempt as Contention after a bounded number of writes, never a 500', async () => {
    // Every write loses its slot just before it lands; the rest of the log stays free.
    dbMock
      .on(UpdateCommand)
      .callsFake((input: { ExpressionAttributeNames: Record<string, string> }) =>
        Promise.reject(conditionFailed({ [input.ExpressionAttributeNames['#slot']!]: nowMs })),
      );
    const result = await new RateLimitStore(client, 'table').count('erin', policy, now);
    expect(result).toMatchObject({ state: 'Contention', retryAfterS: 1 });
    expect(maxAttempts).toBe(8);
    expect(inputs()).toHaveLength(8);
    // Each retry went to a slot not yet seen taken.
    expect(new Set(inputs().map((input) => input.ExpressionAttributeNames?.['#slot'])).size).toBe(8);
  });

  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded'])(
    'answers %s (after the SDK gave up retrying) as Contention: back off 1 s, never a 500',
    async (name) => {
      dbMock.on(UpdateCommand).rejects(awsError(name));
      expect(await new RateLimitStore(client, 'table').count('alice', policy, now)).toMatchObject({
        state: 'Contention',
        retryAfterS: 1,
      });
    },
  );

  it('lets an unknown failure through as the bug it is', async () => {
    dbMock.on(UpdateCommand).rejects(awsError('ResourceNotFoundException'));
    await expect(new RateLimitStore(client, 'table').count('alice', policy, now)).rejects.toThrow(
      'ResourceNotFoundException',
    );
  });
});
