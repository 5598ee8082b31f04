import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { childLogger } from '../core/infra/logger';

const log = childLogger('table-stream');

export interface TableStreamOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly tableName: string;
  /** Called with each shard's records in order, as Lambda's DynamoDB event source calls a function. */
  readonly handler: (event: DynamoDBStreamEvent) => Promise<void>;
  /** The longest pause between two reads of a stream that had nothing new. @default 250 */
  readonly idleMaxDelayMs?: number;
}

export interface TableStreamReader {
  /** Reads again now: a write was just answered (the local cloud calls it for its own writes). */
  nudge(): void;
  readonly running: boolean;
  /** GetRecords calls so far: what the reader costs DynamoDB Local. */
  readonly reads: number;
  stop(): Promise<void>;
}

/** Where the reader is in one shard. */
interface Cursor {
  readonly shardId: string;
  iterator: string | undefined;
  lastSequence?: string;
}

/** Records a batch holds at most (GetRecords' own maximum). */
const batchLimit = 1000;
/** A batch whose handler keeps failing is tried this often, then skipped (the deployed source's retries, then its on-failure queue). */
const handlerAttempts = 3;
/** The pause after a failed read: DynamoDB Local restarting, or its table recreated. */
const errorDelayMs = 500;

/**
 * The local cloud's DynamoDB event source: reads DynamoDB Local's stream of the table
 * (DescribeStream, GetShardIterator, GetRecords, following a closed shard to its children)
 * and calls the handler with Lambda-shaped batches, in order per shard.
 *
 * DynamoDB Local's GetRecords answers at once, empty or not (no long poll), so the reader
 * polls. While records flow it reads again at once; when a read is empty it backs off,
 * doubling up to `idleMaxDelayMs`. A write from this process (every handler of the local
 * cloud) nudges it awake, so a tap's latency floor is one GetRecords (about 2 ms warm) plus
 * the handler, not the backoff; a write from another process waits for at most
 * `idleMaxDelayMs`. Idle, it costs DynamoDB Local a handful of empty reads a second.
 */
export async function startTableStream(options: TableStreamOptions): Promise<TableStreamReader> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const config = { region: options.region, endpoint: options.endpoint, credentials };
  const reader = new StreamReader(new DynamoDBClient(config), new DynamoDBStreamsClient(config), options);
  await reader.start();
  return reader;
}

class StreamReader implements TableStreamReader {
  running = false;
  reads = 0;
  private streamArn: string | undefined;
  private cursors: Cursor[] = [];
  private readonly finished = new Set<string>();
  private wake: (() => void) | undefined;
  private nudged = false;
  private loop: Promise<void> | undefined;
  private readonly idleMaxDelayMs: number;

  constructor(
    private readonly tables: DynamoDBClient,
    private readonly streams: DynamoDBStreamsClient,
    private readonly options: TableStreamOptions,
  ) {
    this.idleMaxDelayMs = options.idleMaxDelayMs ?? 250;
  }

  /** Starts at the stream's end: a tap is news only to sockets open now. */
  async start(): Promise<void> {
    await this.discover('LATEST');
    this.running = true;
    this.loop = this.run();
  }

  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.tables.destroy();
    this.streams.destroy();
  }

  private async run(): Promise<void> {
    let delayMs = 0;
    while (this.running) {
      let records = 0;
      try {
        for (const cursor of [...this.cursors]) records += await this.readShard(cursor);
        delayMs = records > 0 ? 0 : Math.min(this.idleMaxDelayMs, Math.max(1, delayMs * 2));
      } catch (error) {
        if (!this.running) break;
        log.warn('could not read the table stream; reading it again shortly', { error: error as Error });
        delayMs = errorDelayMs;
        await this.pause(delayMs);
        await this.rediscover().catch(() => undefined);
        continue;
      }
      if (records === 0) await this.pause(delayMs);
    }
  }

  /** One GetRecords of the shard and its handling; a closed shard gives way to its children. */
  private async readShard(cursor: Cursor): Promise<number> {
    if (!cursor.iterator) return 0;
    this.reads++;
    const answer = await this.streams.send(
      new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: batchLimit }),
    );
    const records = answer.Records ?? [];
    if (records.length > 0) await this.deliver(records);
    cursor.iterator = answer.NextShardIterator;
    cursor.lastSequence = records.at(-1)?.dynamodb?.SequenceNumber ?? cursor.lastSequence;
    if (!cursor.iterator) {
      this.finished.add(cursor.shardId);
      this.cursors = this.cursors.filter((c) => c !== cursor);
      await this.discover('TRIM_HORIZON');
    }
    return records.length;
  }

  private async deliver(records: StreamRecord[]): Promise<void> {
    const event: DynamoDBStreamEvent = { Records: records.map((r) => lambdaRecord(r, this.streamArn)) };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handler(event);
        return;
      } catch (error) {
        if (attempt >= handlerAttempts || !this.running) {
          log.error('the stream handler failed on a batch; skipping it', { records: records.length, error });
          return;
        }
        await this.pause(errorDelayMs);
      }
    }
  }

  /**
   * The table's current stream and its open shards. A shard already read keeps its cursor; a
   * new one starts at `from` (the stream's end at start, a closed shard's children from their
   * beginning). A table recreated since (DynamoDB Local restarted in memory) has a new stream:
   * read from its beginning.
   */
  private async discover(from: ShardIteratorType): Promise<void> {
    const table = await this.tables.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    const arn = table.Table?.LatestStreamArn;
    if (!arn) throw new Error(`table ${this.options.tableName} has no stream`);
    const newStream = this.streamArn !== undefined && this.streamArn !== arn;
    if (newStream) {
      this.cursors = [];
      this.finished.clear();
    }
    this.streamArn = arn;
    for (const shard of await this.openShards(arn)) {
      if (this.cursors.some((c) => c.shardId === shard.ShardId)) continue;
      const iterator = await this.iterator(shard.ShardId!, newStream ? 'TRIM_HORIZON' : from);
      this.cursors.push({ shardId: shard.ShardId!, iterator });
    }
  }

  /** After a failed read: the same stream resumes after what was handled; a new one from its start. */
  private async rediscover(): Promise<void> {
    const known = this.cursors;
    this.cursors = [];
    await this.discover('TRIM_HORIZON');
    for (const cursor of this.cursors) {
      const before = known.find((c) => c.shardId === cursor.shardId);
      if (before?.lastSequence)
        cursor.iterator = await this.iterator(cursor.shardId, 'AFTER_SEQUENCE_NUMBER', before.lastSequence);
    }
  }

  private async openShards(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const page = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      shards.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    // Open shards, and closed ones not read to their end yet (a parent before its children).
    return shards.filter(
      (s) => s.ShardId && !this.finished.has(s.ShardId) && !s.SequenceNumberRange?.EndingSequenceNumber,
    );
  }

  private async iterator(shardId: string, type: ShardIteratorType, sequence?: string): Promise<string | undefined> {
    const answer = await this.streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(sequence ? { SequenceNumber: sequence } : {}),
      }),
    );
    return answer.ShardIterator;
  }

  /** Waits `ms`, or less if nudged (a nudge during a read skips the next wait). */
  private async pause(ms: number): Promise<void> {
    if (this.nudged || !this.running) {
      this.nudged = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
    this.nudged = false;
  }
}

/** The record as Lambda's event source delivers it: creation time in epoch seconds, the stream's ARN. */
function lambdaRecord(record: StreamRecord, streamArn: string | undefined): DynamoDBRecord {
  const { dynamodb, ...rest } = record;
  const created = dynamodb?.ApproximateCreationDateTime;
  return {
    ...rest,
    ...(streamArn ? { eventSourceARN: streamArn } : {}),
    dynamodb: {
      ...dynamodb,
      ...(created ? { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } : {}),
    },
  } as DynamoDBRecord;
}
