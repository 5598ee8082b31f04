import { BatchGetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '../errors';
import { chunks } from './chunks';
import { jitteredBackoffMs, systemClock, writeContentionBackoff } from './clock';
import { isConditionFailure } from './dependency-errors';
import { decodeIndexCursor, encodeIndexCursor, type IndexKey, type IndexListing } from './index-cursor';
import type { ItemKey } from './keys';

/**
 * What several stores read and write the same way: items by key in batches, and the catalog
 * partitions of gsi3 (core/infra/keys.ts). Each store still writes only its own items.
 */

/** DynamoDB's BatchGetItem limit. */
const batchSize = 100;
/** Rounds of re-asking for keys DynamoDB left unprocessed (throttling) before giving up. */
const unprocessedRounds = 8;

export interface BatchGetOptions {
  /** Strongly consistent reads (twice the read cost): for readers that must see the latest write. */
  readonly consistent: boolean;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * The items of `itemKeys` that exist, 100 keys a BatchGetItem, asking again with jittered
 * backoff for the keys DynamoDB leaves unprocessed under throttling; in no particular order.
 *
 * @throws DependencyUnavailableError 503 when keys are still unprocessed after a few rounds.
 */
export async function batchGetItems(
  db: DynamoDBDocumentClient,
  tableName: string,
  itemKeys: readonly ItemKey[],
  options: BatchGetOptions,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const batch of chunks(itemKeys, batchSize)) items.push(...(await readBatch(db, tableName, batch, options)));
  return items;
}

async function readBatch(
  db: DynamoDBDocumentClient,
  tableName: string,
  batch: readonly ItemKey[],
  options: BatchGetOptions,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = batch.map((key) => ({ pk: key.pk, sk: key.sk }));
  for (let round = 1; pending.length > 0; round++) {
    if (round > unprocessedRounds) {
      throw new DependencyUnavailableError(`DynamoDB left ${pending.length} items unread; retry in 1 s.`, {
        details: { reason: 'throttled' },
      });
    }
    if (round > 1) await options.sleep(jitteredBackoffMs(round - 1, writeContentionBackoff));
    const answer = await db.send(
      new BatchGetCommand({
        RequestItems: { [tableName]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) } },
      }),
    );
    items.push(...(answer.Responses?.[tableName] ?? []));
    pending = answer.UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  return items;
}

/** One Query page of a gsi3 partition (keys only): the items' table keys, and where the next page starts. */
export async function queryIndexKeys(
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  page: { readonly limit?: number; readonly after?: IndexKey },
): Promise<{ keys: ItemKey[]; after?: IndexKey }> {
  const answer = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :partition',
      ExpressionAttributeValues: { ':partition': partition },
      ...(page.limit === undefined ? {} : { Limit: page.limit }),
      ExclusiveStartKey: page.after,
    }),
  );
  const keys = (answer.Items ?? []).map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) }));
  const after = answer.LastEvaluatedKey as IndexKey | undefined;
  return after ? { keys, after } : { keys };
}

/** A page of a catalog (configurations, templates): its items, and where the next page starts. */
export interface CatalogPage<T> {
  readonly items: T[];
  /** Present while the catalog may hold more; pass it back for the next page. */
  readonly nextToken?: string;
}

/**
 * One page of a catalog partition of gsi3 (core/infra/keys.ts, keys only), then its items
 * with one BatchGetItem: `limit` index entries and as many item reads, however large the
 * table. An item deleted between the two reads is left out. In the index's sort order.
 *
 * @throws RequestInvalidError 400 naming `query.nextToken` for a token this catalog did not issue.
 */
export async function readCatalogPage(
  db: DynamoDBDocumentClient,
  tableName: string,
  listing: IndexListing & { readonly partitions: readonly [string] },
  page: { readonly pageToken: string | undefined; readonly limit: number },
): Promise<CatalogPage<Record<string, unknown>>> {
  const [partition] = listing.partitions;
  const cursor = decodeIndexCursor(page.pageToken, listing);
  const { keys: found, after } = await queryIndexKeys(db, tableName, partition, {
    limit: page.limit,
    ...(cursor?.after ? { after: cursor.after } : {}),
  });
  const order = new Map(found.map((key, at) => [`${key.pk}\n${key.sk}`, at]));
  // Eventually consistent, as the index is: an admin's listing, not a decision.
  const items = (await batchGetItems(db, tableName, found, { consistent: false, sleep: systemClock.sleep })).sort(
    (a, b) => order.get(`${String(a.pk)}\n${String(a.sk)}`)! - order.get(`${String(b.pk)}\n${String(b.sk)}`)!,
  );
  return after ? { items, nextToken: encodeIndexCursor({ partition, after }) } : { items };
}

/**
 * Gives an item stored before catalog index keys its entry (the table upgrade's pass), only
 * while the item is still there and still has none: a deleted item is not written back, and
 * a PUT since wrote the same keys. Answers whether this call wrote them.
 */
export async function addCatalogEntry(
  db: DynamoDBDocumentClient,
  tableName: string,
  key: ItemKey,
  entry: { readonly gsi3pk: string; readonly gsi3sk: string },
): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi3pk)',
        ExpressionAttributeValues: { ':pk': entry.gsi3pk, ':sk': entry.gsi3sk },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
