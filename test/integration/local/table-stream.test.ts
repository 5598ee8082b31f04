import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { createDocumentClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import { ensureTable } from '../../../local/cloud';
import { startTableStream, type TableStreamReader } from '../../../local/table-stream';
import { emulatorEndpoints, testTableInput } from '../../helpers/platform';

/**
 * The local cloud's DynamoDB event source on DynamoDB Local: a table kept from a release without
 * the stream gets it, and the reader hands the handler Lambda-shaped batches in write order.
 */
let db: DynamoDBDocumentClient;
let tableName: string;
let reader: TableStreamReader | undefined;

beforeAll(async () => {
  db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: emulatorEndpoints().dynamodb });
  tableName = `rk-stream-${randomUUID().slice(0, 12)}`;
  await db.send(new CreateTableCommand(testTableInput(tableName)));
});
afterAll(async () => {
  await reader?.stop();
  await db.send(new DeleteTableCommand({ TableName: tableName }));
  db.destroy();
});

it('adds the stream to a persisted table without one, then reads each write from its start in order', async () => {
  const before = await db.send(new DescribeTableCommand({ TableName: tableName }));
  expect(before.Table?.StreamSpecification).toBeUndefined();
  await ensureTable(db, tableName);
  const after = await db.send(new DescribeTableCommand({ TableName: tableName }));
  expect(after.Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });

  const room = keys.room(randomUUID());
  // Written before the reader starts: no socket could be waiting for it.
  await db.send(new PutCommand({ TableName: tableName, Item: { ...room, changeNumber: 1 } }));
  const seen: DynamoDBRecord[] = [];
  const handler = async (event: DynamoDBStreamEvent) => void seen.push(...event.Records);
  reader = await startTableStream({ endpoint: emulatorEndpoints().dynamodb, region: 'us-east-1', tableName, handler });
  for (let n = 2; n <= 4; n++) {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: room,
        UpdateExpression: 'SET changeNumber = :n',
        ExpressionAttributeValues: { ':n': n },
      }),
    );
    reader.nudge();
  }
  const until = Date.now() + 5_000;
  while (seen.length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));

  expect(seen.map((r) => [r.eventName, r.dynamodb?.NewImage?.changeNumber?.N])).toEqual([
    ['MODIFY', '2'],
    ['MODIFY', '3'],
    ['MODIFY', '4'],
  ]);
  expect(seen[0]).toMatchObject({
    eventSource: 'aws:dynamodb',
    eventSourceARN: after.Table?.LatestStreamArn,
    dynamodb: { Keys: { pk: { S: room.pk }, sk: { S: 'ROOM' } }, ApproximateCreationDateTime: expect.any(Number) },
  });
});
