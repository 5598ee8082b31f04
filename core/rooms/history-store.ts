import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunks } from '../infra/chunks';
import { keys } from '../infra/keys';
import {
  historyEventSchema,
  historyRetentionS,
  readHistoryPage,
  type HistoryCursor,
  type HistoryEvent,
  type HistoryPage,
  type HistoryQuery,
  type PartitionRead,
} from './history';

/** The spawn/kill history's items (core/rooms/history.ts): written by the stream's consumer, read by the admin API. */
export interface RoomHistory {
  /** Keeps each event under its own key: writing one again (a redelivered record) rewrites the same item. */
  record(events: readonly HistoryEvent[]): Promise<void>;
  /** Newest first, today's and yesterday's; `limit` bounds the events a page holds and each partition's read. */
  list(query: HistoryQuery, now: Date): Promise<HistoryPage>;
}

/** BatchWriteItem's most items per call. */
const batchWriteLimit = 25;
/** Rounds of retrying what DynamoDB left unprocessed (throttling) before the batch fails and its records are retried. */
const unprocessedRounds = 5;

/** `RoomHistory` on the single table. */
export class HistoryStore implements RoomHistory {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async record(events: readonly HistoryEvent[]): Promise<void> {
    await Promise.all(chunks(events.map(historyItem), batchWriteLimit).map((items) => this.writeAll(items)));
  }

  list(query: HistoryQuery, now: Date): Promise<HistoryPage> {
    return readHistoryPage(query, now, (cursor, limit, roomId) => this.readPartition(cursor, limit, roomId));
  }

  private async writeAll(items: readonly Record<string, unknown>[]): Promise<void> {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round >= unprocessedRounds) throw new Error(`${requests.length} history events left unwritten.`);
      if (round > 0) await this.sleep(50 * 2 ** round);
      const { UnprocessedItems } = await this.db.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }),
      );
      requests = (UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
    }
  }

  private async readPartition(cursor: HistoryCursor, limit: number, roomId?: string): Promise<PartitionRead> {
    const page = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: cursor.after === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :after',
        ...(roomId === undefined ? {} : { FilterExpression: 'roomId = :roomId' }),
        ExpressionAttributeValues: {
          ':pk': cursor.partition,
          ...(cursor.after === undefined ? {} : { ':after': cursor.after }),
          ...(roomId === undefined ? {} : { ':roomId': roomId }),
        },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    const events = (page.Items ?? []).flatMap((item) => {
      const event = historyEventSchema.safeParse(eventFields(item));
      return event.success ? [{ sk: String(item.sk), event: event.data }] : [];
    });
    const last = page.LastEvaluatedKey?.sk;
    return { cursor, events, ...(typeof last === 'string' ? { last } : {}) };
  }
}

function historyItem(event: HistoryEvent): Record<string, unknown> {
  return {
    ...keys.historyEvent(event.at, event.roomId, event.changeNumber),
    type: 'history',
    ...event,
    ttl: Math.ceil(Date.parse(event.at) / 1000) + historyRetentionS,
  };
}

function eventFields(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...event } = item;
  return event;
}
