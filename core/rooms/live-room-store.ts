import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '../errors';
import { chunks } from '../infra/chunks';
import { jitteredBackoffMs, writeContentionBackoff } from '../infra/clock';
import { keys, liveRoomShards, type ItemKey } from '../infra/keys';
import { documentOf, SessionDocumentCorruptError, type SessionDocument } from './document';
import { isLive, type Room } from './model';
import { roomOf } from './room-item';

/** A live room as the sweeper reads it: the room, and its members when the document is sound. */
export interface LiveRoom {
  readonly room: Room;
  /** Absent when the document does not parse: the room is still judged, its members are not touched. */
  readonly doc?: SessionDocument;
}

/**
 * The live rooms of the whole table, without scanning it: the sweeper's index (gsi3) holds a
 * room from its creation until the write that fails or closes it, whatever else the table
 * holds (ended rooms awaiting TTL, accounts, idempotency records, ...).
 */
export interface LiveRoomIndex {
  /**
   * Every room spawning or ready, read strongly consistently (one item read per room). The
   * index itself is eventually consistent: a room created a moment ago may be missed (the
   * next sweep finds it); one ended a moment ago is read and dropped here by its state.
   */
  liveRooms(): Promise<LiveRoom[]>;
  /**
   * Which of `roomIds` are live, each room's item read strongly consistently (BatchGetItem,
   * 100 a request), whether the index shows it yet or not: the orphan pass's check that a
   * room it did not see live has really ended.
   */
  liveAmong(roomIds: readonly string[]): Promise<Set<string>>;
}

/** DynamoDB's BatchGetItem limit. */
const batchSize = 100;
/** Rounds of re-asking for keys DynamoDB left unprocessed (throttling) before giving up. */
const unprocessedRounds = 8;
const sweepIndex = 'gsi3';

/** `LiveRoomIndex` on the single table: Query every shard of gsi3 (keys only), then BatchGetItem the rooms. */
export class LiveRoomStore implements LiveRoomIndex {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async liveRooms(): Promise<LiveRoom[]> {
    const shards = Array.from({ length: liveRoomShards }, (_, shard) => shard);
    const roomKeys = (await Promise.all(shards.map((shard) => this.shardKeys(shard)))).flat();
    const rooms = (await this.liveItems(roomKeys)).map(({ room, item }) => ({ room, ...documentIfSound(item) }));
    return rooms.sort((a, b) => (a.room.roomId < b.room.roomId ? -1 : a.room.roomId > b.room.roomId ? 1 : 0));
  }

  async liveAmong(roomIds: readonly string[]): Promise<Set<string>> {
    const roomKeys = [...new Set(roomIds)].map((roomId) => keys.room(roomId));
    return new Set((await this.liveItems(roomKeys)).map(({ room }) => room.roomId));
  }

  /** The items of `roomKeys` whose room is live, read strongly 100 keys a request. */
  private async liveItems(roomKeys: readonly ItemKey[]): Promise<{ room: Room; item: Record<string, unknown> }[]> {
    const live: { room: Room; item: Record<string, unknown> }[] = [];
    for (const batch of chunks(roomKeys, batchSize)) {
      for (const item of await this.readBatch(batch)) {
        const room = roomOf(item);
        if (isLive(room.state)) live.push({ room, item });
      }
    }
    return live;
  }

  /** The table keys of one shard's rooms, every page. */
  private async shardKeys(shard: number): Promise<ItemKey[]> {
    const found: ItemKey[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: sweepIndex,
          KeyConditionExpression: 'gsi3pk = :shard',
          ExpressionAttributeValues: { ':shard': keys.sweepIndex(shard) },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) found.push({ pk: String(item.pk), sk: String(item.sk) });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  }

  /** Up to 100 items, asking again for the ones DynamoDB leaves unprocessed under throttling. */
  private async readBatch(batch: ItemKey[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let pending: Record<string, unknown>[] = batch.map((key) => ({ ...key }));
    for (let round = 1; pending.length > 0; round++) {
      if (round > unprocessedRounds) {
        throw new DependencyUnavailableError(`DynamoDB left ${pending.length} live rooms unread; retry in 1 s.`, {
          details: { reason: 'throttled' },
        });
      }
      if (round > 1) await this.sleep(jitteredBackoffMs(round - 1, writeContentionBackoff));
      const answer = await this.db.send(
        new BatchGetCommand({
          // Consistent: a heartbeat applied before the sweep observed the pipeline must show.
          RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } },
        }),
      );
      items.push(...(answer.Responses?.[this.tableName] ?? []));
      pending = answer.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return items;
  }
}

function documentIfSound(item: Record<string, unknown>): { doc?: SessionDocument } {
  try {
    return { doc: documentOf(item) };
  } catch (error) {
    if (error instanceof SessionDocumentCorruptError) return {};
    throw error;
  }
}
