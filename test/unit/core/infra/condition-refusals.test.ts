import { Readable } from 'node:stream';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HttpResponse } from '@smithy/core/transport';
import { createDocumentClient, createSqsClient } from '../../../../core/infra/aws-clients';
import { conditionRefusals } from '../../../../core/infra/condition-refusals';

/**
 * The refusal decoder against the SDK's own error path: the same DynamoDB answer, decoded by
 * both, must give the same exception (class, name, message, metadata, `Item`), and any other
 * answer must reach the SDK untouched.
 */
const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-1' };
const item = {
  pk: { S: 'ROOM#r1' },
  players: { N: '3' },
  members: { M: { alice: { M: { t: { N: '17' }, k: { S: 'key' }, q: { L: [{ B: 'AAEC' }, { NULL: true }] } } } } },
  tags: { BS: ['AQI='] },
};

function answering(statusCode: number, body: unknown) {
  return {
    handle: async () => ({
      response: new HttpResponse({ statusCode, headers, body: Readable.from([Buffer.from(JSON.stringify(body))]) }),
    }),
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
}

function client(decoder: boolean, statusCode: number, body: unknown) {
  const low = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: answering(statusCode, body),
  });
  if (decoder) low.middlewareStack.use(conditionRefusals);
  return DynamoDBDocumentClient.from(low);
}

const update = new UpdateCommand({
  TableName: 'table',
  Key: { pk: 'ROOM#r1' },
  UpdateExpression: 'SET #a = :a',
  ConditionExpression: 'attribute_not_exists(#a)',
  ExpressionAttributeNames: { '#a': 'a' },
  ExpressionAttributeValues: { ':a': 1 },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
});

async function failureOf(decoder: boolean, statusCode: number, body: unknown): Promise<Record<string, unknown>> {
  const error = await client(decoder, statusCode, body)
    .send(update)
    .then(
      () => undefined,
      (e: unknown) => e as Record<string, unknown>,
    );
  if (!error) throw new Error('expected a failure');
  return error;
}

/** Everything a caller can read of the exception but the raw response. */
function comparable(error: Record<string, unknown>) {
  const { $response: _response, ...fields } = error;
  return { ...fields, isRefusal: error instanceof ConditionalCheckFailedException, message: error.message };
}

describe('conditionRefusals', () => {
  it.each([
    ['with the old item', { Item: item }],
    ['without an item', {}],
  ])('decodes a refused condition %s exactly as the SDK does', async (_, extra) => {
    const body = {
      __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
      message: 'The conditional request failed',
      ...extra,
    };
    const ours = await failureOf(true, 400, body);
    const sdk = await failureOf(false, 400, body);
    expect(comparable(ours)).toEqual(comparable(sdk));
    expect(comparable(ours).isRefusal).toBe(true);
  });

  it('leaves any other error to the SDK', async () => {
    const body = { __type: 'com.amazon.coral.validate#ValidationException', message: 'Invalid expression' };
    const ours = await failureOf(true, 400, body);
    expect(comparable(ours)).toEqual(comparable(await failureOf(false, 400, body)));
    expect(ours.name).toBe('ValidationException');
  });

  it('leaves a success to the SDK', async () => {
    const answer = await client(true, 200, { Attributes: { players: { N: '4' } } }).send(update);
    expect(answer.Attributes).toEqual({ players: 4 });
  });
});

describe('the platform clients', () => {
  const names = (stack: { identify(): string[] }) => stack.identify().map((entry) => entry.split(' ')[0]);

  it('decode refusals themselves and leave out the SDK logging', () => {
    const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: 'http://127.0.0.1:1' });
    const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: 'http://127.0.0.1:1' });
    expect(names(db.middlewareStack)).toContain('conditionRefusals');
    expect(names(db.middlewareStack)).not.toContain('loggerMiddleware');
    expect(names(sqs.middlewareStack)).not.toContain('loggerMiddleware');
    db.destroy();
    sqs.destroy();
  });
});
