import * as z from 'zod';
import { RequestInvalidError } from '../errors';
import type { ItemKey } from './keys';

/**
 * `nextToken` of the listings that page an index partition by partition (`GET /v1/admin/rooms`
 * over the sweeper's shards, the catalog listings): the partition to read next and, within
 * it, the index key DynamoDB returned as `LastEvaluatedKey`, as base64url JSON. A token comes
 * back from the client, so it is input like any other: it is accepted only when it names one
 * of the listing's partitions and, if it holds a key, exactly the key an item listed there
 * has. Anything else is a 400 naming `query.nextToken`, never a ValidationException.
 */
const indexKeySchema = z.strictObject({
  pk: z.string().min(1).max(512),
  sk: z.string().min(1).max(512),
  gsi3pk: z.string().min(1).max(256),
  gsi3sk: z.string().min(1).max(256),
});

const cursorSchema = z.strictObject({ partition: z.string().min(1).max(256), after: indexKeySchema.optional() });

export type IndexKey = z.output<typeof indexKeySchema>;

/** Where the next page starts: at `after` in `partition`, or at its first entry. */
export interface IndexCursor {
  readonly partition: string;
  readonly after?: IndexKey;
}

/** What a listing takes back: its partitions, and the table key of an entry of one of them. */
export interface IndexListing {
  readonly partitions: readonly string[];
  /** The key of the item an entry of `partition` sorted as `sortKey` has; undefined when no item could be. */
  itemKey(partition: string, sortKey: string): ItemKey | undefined;
}

export function encodeIndexCursor(cursor: IndexCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/**
 * The cursor a token stands for, if it is one `listing` could have issued.
 * @throws RequestInvalidError 400 naming `query.nextToken` otherwise.
 */
export function decodeIndexCursor(token: string | undefined, listing: IndexListing): IndexCursor | undefined {
  if (token === undefined || token === '') return undefined;
  const cursor = parse(token);
  if (cursor && listing.partitions.includes(cursor.partition) && keyFits(cursor, listing)) return cursor;
  throw new RequestInvalidError('nextToken is not a token this API issued for this listing.', [
    { field: 'query.nextToken', message: 'is not a page token of this listing' },
  ]);
}

/** A key must be an entry of the cursor's partition, with the table key its item has. */
function keyFits(cursor: IndexCursor, listing: IndexListing): boolean {
  const { after } = cursor;
  if (after === undefined) return true;
  if (after.gsi3pk !== cursor.partition) return false;
  const own = listing.itemKey(cursor.partition, after.gsi3sk);
  return own !== undefined && own.pk === after.pk && own.sk === after.sk;
}

function parse(token: string): IndexCursor | undefined {
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
