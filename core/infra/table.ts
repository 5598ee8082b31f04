import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { listedRoomFields } from '../rooms/model';

/**
 * The one DynamoDB table, described once. The CDK stack and the local cloud both build
 * their table from this object, so keys, indexes and the TTL attribute cannot drift apart.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Expiry as epoch seconds. Garbage collection only: correctness never depends on it. */
  timeToLiveAttribute: 'ttl',
  /**
   * The table's change stream: each write's new item, which the live-session taps read
   * (lambdas/stream/room-taps.ts). New images only: a tap needs the room as the write left it,
   * never as it was, and an old image would double what every write records.
   */
  streamViewType: 'NEW_IMAGE',
  globalSecondaryIndexes: [
    {
      /** Live rooms of one matchmaking bucket (game, version, region, criteria), oldest first for packing. */
      indexName: 'gsi1',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      /** What matchmaking filters on and returns; the members map stays out (see listedRoomFields). */
      projection: 'INCLUDE',
      nonKeyAttributes: ['roomId', 'state', 'players', 'maxPlayers'],
    },
    {
      /** Live rooms of one game version in one region, for listing. */
      indexName: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projection: 'INCLUDE',
      nonKeyAttributes: listedRoomFields,
    },
    {
      /**
       * Every live room, spread over a few shard partitions: what the sweeper (and the local
       * cloud's reconciliation) visits instead of scanning the table. Keys only: the index is
       * written when a room is created and when it ends, never by a join or a heartbeat.
       */
      indexName: 'gsi3',
      partitionKey: 'gsi3pk',
      sortKey: 'gsi3sk',
      projection: 'KEYS_ONLY',
      nonKeyAttributes: undefined,
    },
  ],
} as const;

/**
 * The CreateTable request the local cloud and the integration tests send, with the stream the
 * deployed table has (the local cloud reads it: local/table-stream.ts).
 */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyNames = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType },
    AttributeDefinitions: [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: {
        ProjectionType: index.projection,
        ...(index.nonKeyAttributes ? { NonKeyAttributes: [...index.nonKeyAttributes] } : {}),
      },
    })),
  };
}
