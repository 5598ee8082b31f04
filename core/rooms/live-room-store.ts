import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, queryIndexKeys } from '../infra/index-store';
import { decodeIndexCursor, encodeIndexCursor, type IndexKey, type IndexListing } from '../infra/index-cursor';
import { keys, liveRoomShard, liveRoomShards, type ItemKey } from '../infra/keys';
import { documentOf, SessionDocumentCorruptError, type SessionDocument } from './document';
import { isLive, type Room } from './model';
import { roomOf } from './room-item';
import { roomIdSchema } from './schema';

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

/** One page of live rooms: the rooms of the index entries it read, and where the next page starts. */
export interface LiveRoomPage {
  /** In index order (shard by shard, room id order within one); entries whose room ended meanwhile dropped. */
  readonly rooms: Room[];
  /** Present while shards remain to read; pass it back for the next page. */
  readonly nextToken?: string;
}

/** Every live room, page by page (`GET /v1/admin/rooms`), over the same index the sweeper reads. */
export interface LiveRoomPages {
  /**
   * Up to `limit` index entries from where `pageToken` left off, crossing into the next shard
   * when one runs out, and their rooms: each call reads O(`limit`) items whatever the table
   * holds. A page may hold fewer rooms than `limit` (even none) and still carry a token;
   * following the tokens visits every room live throughout exactly once.
   *
   * @throws RequestInvalidError 400 naming `query.nextToken` for a token this listing did not issue.
   */
  page(pageToken: string | undefined, limit: number): Promise<LiveRoomPage>;
}

/** Tokens of the live-room pages: a shard of the sweeper's index, and a room of that shard. */
export const liveRoomListing: IndexListing = {
  partitions: Array.from({ length: liveRoomShards }, (_, shard) => keys.sweepIndex(shard)),
  itemKey: (partition, roomId) =>
    roomIdSchema.safeParse(roomId).success && keys.sweepIndex(liveRoomShard(roomId)) === partition
      ? keys.room(roomId)
      : undefined,
};

/** `LiveRoomIndex` on the single table: Query every shard of gsi3 (keys only), then BatchGetItem the rooms. */
export class LiveRoomStore implements LiveRoomIndex, LiveRoomPages {
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

  async page(pageToken: string | undefined, limit: number): Promise<LiveRoomPage> {
    const cursor = decodeIndexCursor(pageToken, liveRoomListing);
    let shard = cursor ? liveRoomListing.partitions.indexOf(cursor.partition) : 0;
    let startKey: IndexKey | undefined = cursor?.after;
    const found: ItemKey[] = [];
    while (found.length < limit && shard < liveRoomShards) {
      const page = await queryIndexKeys(this.db, this.tableName, keys.sweepIndex(shard), {
        limit: limit - found.length,
        ...(startKey ? { after: startKey } : {}),
      });
      found.push(...page.keys);
      startKey = page.after;
      if (!startKey) shard++;
    }
    const order = new Map(found.map((key, at) => [key.pk, at]));
    const rooms = (await this.liveItems(found))
      .map(({ room }) => room)
      .sort((a, b) => order.get(keys.room(a.roomId).pk)! - order.get(keys.room(b.roomId).pk)!);
    if (shard >= liveRoomShards) return { rooms };
    const next = { partition: keys.sweepIndex(shard), ...(startKey ? { after: startKey } : {}) };
    return { rooms, nextToken: encodeIndexCursor(next) };
  }

  /**
   * The items of `roomKeys` whose room is live, read strongly: a heartbeat applied before the
   * sweep observed the pipeline must show, and an operator's listing shows a room just closed as gone.
   */
  private async liveItems(roomKeys: readonly ItemKey[]): Promise<{ room: Room; item: Record<string, unknown> }[]> {
    const items = await batchGetItems(this.db, this.tableName, roomKeys, { consistent: true, sleep: this.sleep });
    return items.map((item) => ({ room: roomOf(item), item })).filter(({ room }) => isLive(room.state));
  }

  /** The table keys of one shard's rooms, every page. */
  private async shardKeys(shard: number): Promise<ItemKey[]> {
    const found: ItemKey[] = [];
    let startKey: IndexKey | undefined;
    do {
      const page = await queryIndexKeys(this.db, this.tableName, keys.sweepIndex(shard), {
        ...(startKey ? { after: startKey } : {}),
      });
      found.push(...page.keys);
      startKey = page.after;
    } while (startKey);
    return found;
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
