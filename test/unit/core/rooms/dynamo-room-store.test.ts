import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DependencyUnavailableError } from '../../../../core/errors';
import { RoomAlreadyExistsError } from '../../../../core/rooms/errors';
import { dynamoRoomStore } from '../../../../core/rooms/dynamo-room-store';
import { aRoom } from '../../../helpers/factories';

/**
 * DynamoDB Local never throttles, so the throttled write comes from a mocked client: the
 * answer is the exact exception DynamoDB gives, and the request is pinned. A room and its
 * creator's reservation are one item (the session document), written by one PutItem.
 */
const dbMock = mockClient(DynamoDBDocumentClient);
const sleeps: number[] = [];
const store = dynamoRoomStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'table', {
  sleep: async (ms) => {
    sleeps.push(ms);
  },
});

const throttled = () =>
  new ProvisionedThroughputExceededException({ message: 'throughput exceeded', $metadata: { httpStatusCode: 400 } });
const conditionFailed = () =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
  });

beforeEach(() => {
  dbMock.reset();
  sleeps.length = 0;
});

describe('dynamoRoomStore: createWithMember', () => {
  it('writes the room and its creator as one session document with a not-exists condition', async () => {
    dbMock.on(PutCommand).resolves({});
    const room = aRoom({ roomId: 'r1', players: 1, state: 'spawning', serverScopes: ['play'] });

    await store.createWithMember(room, {
      account: 'alice',
      keyHash: 'ab'.repeat(32),
      scopes: ['play'],
      createdAt: '2026-01-01T00:00:00.000Z',
    });

    const calls = dbMock.commandCalls(PutCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      TableName: 'table',
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      Item: expect.objectContaining({
        roomId: 'r1',
        type: 'room',
        players: 1,
        // Pending: a room still spawning starts the creator's clock at inited.
        // The key hash lives in the member: the account is stored once.
        members: {
          alice: {
            s: 0,
            t: Date.parse('2026-01-01T00:00:00.000Z'),
            p: 30_000,
            c: ['play'],
            // The member number, drawn at random: the arbiter's succession order.
            n: expect.any(Number),
            k: Buffer.from('ab'.repeat(16), 'hex').toString('base64url'),
          },
        },
        gone: {},
      }),
    });
  });

  it('answers a failed condition as "already exists"', async () => {
    dbMock.on(PutCommand).rejects(conditionFailed());

    await expect(store.createWithMember(aRoom())).rejects.toBeInstanceOf(RoomAlreadyExistsError);
    expect(dbMock.commandCalls(PutCommand)).toHaveLength(1);
  });

  it('takes a failed condition that returns this very room as its own earlier attempt (a timed-out put the SDK retried)', async () => {
    const room = aRoom({ roomId: 'r2' });
    const own = new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: { httpStatusCode: 400 },
      Item: marshall({ pk: 'ROOM#r2', sk: 'ROOM', roomId: 'r2', owner: room.owner, createdAt: room.createdAt }),
    });
    dbMock.on(PutCommand).rejects(own);
    await expect(store.createWithMember(room)).resolves.toBeUndefined();

    const someoneElses = new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: { httpStatusCode: 400 },
      Item: marshall({ pk: 'ROOM#r2', sk: 'ROOM', roomId: 'r2', owner: 'mallory', createdAt: room.createdAt }),
    });
    dbMock.on(PutCommand).rejects(someoneElses);
    await expect(store.createWithMember(room)).rejects.toBeInstanceOf(RoomAlreadyExistsError);
  });

  it('retries a throttled write and succeeds without calling it "already exists"', async () => {
    dbMock.on(PutCommand).rejectsOnce(throttled()).rejectsOnce(throttled()).resolves({});

    await expect(store.createWithMember(aRoom())).resolves.toBeUndefined();
    expect(dbMock.commandCalls(PutCommand)).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('answers 503 UNAVAILABLE (never 400 "already exists") when throttling outlasts the retries', async () => {
    dbMock.on(PutCommand).rejects(throttled());

    const failure = await store.createWithMember(aRoom()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).not.toBeInstanceOf(RoomAlreadyExistsError);
    expect((failure as DependencyUnavailableError).status).toBe(503);
    expect((failure as DependencyUnavailableError).headers).toEqual({ 'retry-after': '1' });
    expect(dbMock.commandCalls(PutCommand)).toHaveLength(5);
  });

  it('answers UNAVAILABLE when DynamoDB cannot be reached', async () => {
    dbMock.on(PutCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));

    await expect(store.createWithMember(aRoom())).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(dbMock.commandCalls(PutCommand)).toHaveLength(1);
  });
});
