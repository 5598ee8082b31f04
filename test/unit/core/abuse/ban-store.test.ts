import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { BanStore } from '../../../../core/abuse/ban-store';
import type { Ban } from '../../../../core/abuse/bans';
import { logTtl, type RateLimitPolicy } from '../../../../core/abuse/rate-limit';

const dbMock = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const now = new Date('2026-01-01T12:00:00.000Z');
const gates: RateLimitPolicy[] = [
  { action: 'join', limit: 20, windowS: 60 },
  { action: 'command', limit: 60, windowS: 60 },
];
const ban = (expiresAt?: string): Ban => ({
  account: 'mallory',
  createdAt: now.toISOString(),
  createdBy: 'ops',
  ...(expiresAt ? { expiresAt } : {}),
});
const store = () => new BanStore(client, 'table', async () => undefined);
const transactions = () => dbMock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);

beforeEach(() => dbMock.reset());

describe('BanStore: the ban item and its mirror on every gate, in one transaction', () => {
  it('places a permanent ban: the gates lose their TTL, so none is collected while it holds', async () => {
    dbMock.on(TransactWriteCommand).resolves({});
    await store().put(ban(), gates, now);
    const [items] = transactions();
    expect(items).toHaveLength(3);
    expect(items?.[0]?.Put?.Item).toMatchObject({ pk: 'ACCOUNT#mallory', sk: 'BAN', type: 'ban' });
    expect(items?.[0]?.Put?.Item).not.toHaveProperty('ttl');
    expect(items?.slice(1).map((item) => item.Update)).toEqual(
      ['GATE#join', 'GATE#command'].map((sk) => ({
        TableName: 'table',
        Key: { pk: 'ACCOUNT#mallory', sk },
        UpdateExpression: 'SET #ban = :ban, #type = :type REMOVE #ttl',
        ExpressionAttributeNames: { '#ban': 'ban', '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':ban': {}, ':type': 'accountGate' },
      })),
    );
  });

  it('places a timed ban: each gate carries its end, and a TTL no earlier than the ban’s or the log’s end', async () => {
    dbMock.on(TransactWriteCommand).resolves({});
    const expiresAt = '2026-01-01T12:00:10.000Z';
    await store().put(ban(expiresAt), gates, now);
    const update = transactions()[0]?.[1]?.Update;
    expect(update?.UpdateExpression).toBe('SET #ban = :ban, #type = :type, #ttl = :ttl');
    expect(update?.ExpressionAttributeValues).toEqual({
      ':ban': { until: Date.parse(expiresAt) },
      ':type': 'accountGate',
      ':ttl': logTtl(now, gates[0]!),
    });
  });

  it('lifts a ban with its mirrors in one transaction, and hands back what it held', async () => {
    const placed = ban();
    dbMock.on(GetCommand).resolves({ Item: { pk: 'ACCOUNT#mallory', sk: 'BAN', type: 'ban', ...placed } });
    dbMock.on(TransactWriteCommand).resolves({});
    await expect(store().delete('mallory', gates, now)).resolves.toEqual(placed);
    const [items] = transactions();
    expect(items?.[0]).toEqual({ Delete: { TableName: 'table', Key: { pk: 'ACCOUNT#mallory', sk: 'BAN' } } });
    expect(items?.slice(1).map((item) => item.Update?.UpdateExpression)).toEqual([
      'SET #type = :type, #ttl = :ttl REMOVE #ban',
      'SET #type = :type, #ttl = :ttl REMOVE #ban',
    ]);
  });

  it('writes nothing to lift a ban that is not there', async () => {
    dbMock.on(GetCommand).resolves({});
    await expect(store().delete('mallory', gates, now)).resolves.toBeUndefined();
    expect(transactions()).toEqual([]);
  });

  it('tries again when the transaction collides with the admissions of the account it bans', async () => {
    const conflict = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }, { Code: 'None' }],
    });
    dbMock.on(TransactWriteCommand).rejectsOnce(conflict).resolves({});
    await store().put(ban(), gates, now);
    expect(transactions()).toHaveLength(2);
  });
});
