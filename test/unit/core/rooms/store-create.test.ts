import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DependencyUnavailableError } from '../../../../core/errors';
import { RoomAlreadyExistsError } from '../../../../core/rooms/errors';
import { RoomStore } from '../../../../core/rooms/store';
import { aRoom } from '../../../helpers/factories';

/**
 * DynamoDB Local never throttles, so the throttled transaction comes from a mocked client:
 * the answer is the exact shape DynamoDB gives (TransactionCanceledException with one reason
 * per item), and the request is pinned.
 */
const dbMock = mockClient(DynamoDBDocumentClient);
const sleeps: number[] = [];
const store = new RoomStore(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  'table',
  async (ms) => {
    sleeps.push(ms);
  },
);

function cancelled(...codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

beforeEach(() => {
  dbMock.reset();
  sleeps.length = 0;
});

describe('RoomStore.createWithMember', () => {
  it('writes the room with a not-exists condition in one transaction', async () => {
    dbMock.on(TransactWriteCommand).resolves({});
    const room = aRoom({ roomId: 'r1' });

    await store.create(room);

    const calls = dbMock.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input.TransactItems).toEqual([
      {
        Put: expect.objectContaining({
          TableName: 'table',
          ConditionExpression: 'attribute_not_exists(pk)',
          Item: expect.objectContaining({ roomId: 'r1', type: 'room' }),
        }),
      },
    ]);
  });

  it('answers a failed condition as "already exists"', async () => {
    dbMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed'));

    await expect(store.create(aRoom())).rejects.toBeInstanceOf(RoomAlreadyExistsError);
    expect(dbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('retries a transaction cancelled by throttling and succeeds without calling it "already exists"', async () => {
    dbMock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('ThrottlingError'))
      .rejectsOnce(cancelled('None', 'TransactionConflict'))
      .resolves({});

    await expect(store.create(aRoom())).resolves.toBeUndefined();
    expect(dbMock.commandCalls(TransactWriteCommand)).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('answers 503 UNAVAILABLE (never 400 "already exists") when throttling outlasts the retries', async () => {
    dbMock.on(TransactWriteCommand).rejects(cancelled('ThrottlingError', 'None', 'None'));

    const failure = await store.create(aRoom()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).not.toBeInstanceOf(RoomAlreadyExistsError);
    expect((failure as DependencyUnavailableError).status).toBe(503);
    expect((failure as DependencyUnavailableError).headers).toEqual({ 'retry-after': '1' });
    expect(dbMock.commandCalls(TransactWriteCommand)).toHaveLength(5);
  });

  it('answers UNAVAILABLE when DynamoDB cannot be reached', async () => {
    dbMock.on(TransactWriteCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));

    await expect(store.create(aRoom())).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(dbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});
