import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { expectUnavailable, startOutageCloud, until, type OutageCloud } from '../helpers/outage';

/** With `--persist`, a DynamoDB Local that died comes back with its data. */
const persistDir = mkdtempSync(join(tmpdir(), 'roomkeeper-persist-'));
let outage: OutageCloud;
beforeAll(async () => {
  outage = await startOutageCloud({ restartDelayMs: 2_000, persistDir });
}, 120_000);
afterAll(async () => {
  expect(await outage?.test.stop()).toEqual([]);
  rmSync(persistDir, { recursive: true, force: true });
});

it('keeps the data of a persisted DynamoDB Local across its restart', async () => {
  const { test, getRoom, health } = outage;
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: test.cloud.dynamodb.endpoint });
  const Key = { pk: 'TEST#persist', sk: 'TEST#persist' };
  await db.send(new PutCommand({ TableName: test.cloud.tableName, Item: { ...Key, kept: true } }));

  process.kill(test.cloud.dynamodb.pid, 'SIGKILL');
  expectUnavailable(await until(getRoom, (r) => r.status !== 404, 3_000));
  expect((await until(health, (r) => r.status === 200, 60_000)).status).toBe(200);

  const { Item } = await db.send(new GetCommand({ TableName: test.cloud.tableName, Key, ConsistentRead: true }));
  db.destroy();
  expect(Item).toMatchObject({ kept: true });
  expect(test.cloud.dynamodb.restarts).toBe(1);
}, 90_000);
