import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ensureTable } from '../../../local/cloud';

const dbMock = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const missing = () =>
  new ResourceNotFoundException({ message: 'Cannot do operations on a non-existent table', $metadata: {} });

describe('ensureTable', () => {
  beforeEach(() => dbMock.reset());

  it('takes a create retried after its lost answer (the table and its TTL already there) as done', async () => {
    dbMock.on(DescribeTableCommand).rejects(missing());
    dbMock
      .on(CreateTableCommand)
      .rejects(new ResourceInUseException({ message: 'Cannot create preexisting table', $metadata: {} }));
    dbMock.on(UpdateTimeToLiveCommand).rejects(new Error('TimeToLive is already enabled'));
    await expect(ensureTable(client, 't')).resolves.toBeUndefined();
    expect(dbMock.commandCalls(CreateTableCommand)[0]?.args[0].input.TableName).toBe('t');
  });

  it('never creates a table it could not describe for another reason', async () => {
    dbMock.on(DescribeTableCommand).rejects(new Error('socket hang up'));
    await expect(ensureTable(client, 't')).rejects.toThrow('socket hang up');
    expect(dbMock.commandCalls(CreateTableCommand)).toHaveLength(0);
  });
});
