import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { RateLimitStore, rateConditions } from '../../../../core/abuse/rate-limit-store';
import type { RateLimitPolicy } from '../../../../core/abuse/rate-limit';

const dbMock = mockClient(DynamoDBDocumentClient);
const store = new RateLimitStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'table');
const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
const now = new Date('2026-01-01T00:01:45.250Z');
const windowStartS = Date.parse('2026-01-01T00:01:00.000Z') / 1000;

function awsError(name: string): Error {
  return Object.assign(new Error(name), { name, $metadata: {} });
}

beforeEach(() => dbMock.reset());

describe('RateLimitStore.count', () => {
  it('raises the window counter with one conditional UpdateItem, pinned clause by clause', async () => {
    dbMock.on(UpdateCommand).resolves({ Attributes: { count: 3 } });

    const result = await store.count('alice', policy, now);

    expect(result).toEqual({ state: 'Counted', count: 3 });
    expect(dbMock.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(dbMock.commandCalls(UpdateCommand)[0]!.args[0].input).toEqual({
      TableName: 'table',
      Key: { pk: 'ACCOUNT#alice', sk: `RATE#join#${windowStartS}` },
      UpdateExpression: 'ADD #count :one SET #type = :type, #ttl = :ttl',
      ConditionExpression: '(attribute_not_exists(#count) OR #count < :limit)',
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': 20, ':type': 'rateWindow', ':ttl': windowStartS + 60 + 60 },
      ReturnValues: 'UPDATED_NEW',
    });
    expect(rateConditions.windowHasRoom).toBe('(attribute_not_exists(#count) OR #count < :limit)');
  });

  it('keeps joins and creations on separate counters', async () => {
    dbMock.on(UpdateCommand).resolves({ Attributes: { count: 1 } });
    await store.count('alice', { ...policy, action: 'create' }, now);
    expect(dbMock.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toEqual({
      pk: 'ACCOUNT#alice',
      sk: `RATE#create#${windowStartS}`,
    });
  });

  it('answers a failed condition as Exhausted until the window ends', async () => {
    dbMock
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    expect(await store.count('alice', policy, now)).toEqual({ state: 'Exhausted', retryAfterS: 15 });
  });

  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded'])(
    'answers %s (after the SDK gave up retrying) as Contention: back off 1 s, never a 500',
    async (name) => {
      dbMock.on(UpdateCommand).rejects(awsError(name));
      expect(await store.count('alice', policy, now)).toMatchObject({ state: 'Contention', retryAfterS: 1 });
    },
  );

  it('lets an unknown failure through as the bug it is', async () => {
    dbMock.on(UpdateCommand).rejects(awsError('ResourceNotFoundException'));
    await expect(store.count('alice', policy, now)).rejects.toThrow('ResourceNotFoundException');
  });
});
