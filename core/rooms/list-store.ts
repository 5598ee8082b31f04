import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import type { ListedRoom } from './model';
import { decodePageToken, encodePageToken } from './page-token';
import { roomOf } from './room-item';

/** Which listing: one game version in one region. */
export interface RoomListingQuery {
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
}

export interface RoomPage {
  readonly rooms: ListedRoom[];
  /** Present while the listing may hold more rooms; pass it back for the next page. */
  readonly nextToken?: string;
}

/**
 * Lookups over the listing index (gsi2), which holds live rooms only: a room leaves it when
 * it fails or closes (core/rooms/rooms.ts `completeWrite`), so no lookup here reads ended rooms.
 */
export interface RoomListing {
  /**
   * Ready rooms with a free slot, oldest first. `limit` bounds the rooms *examined*, not the
   * rooms returned: a page may hold fewer (even none) and still carry a `nextToken`; following
   * the tokens visits every open room exactly once.
   *
   * @throws RequestInvalidError 400 naming `query.nextToken` for a token this listing did not issue.
   */
  listOpen(query: RoomListingQuery, pageToken: string | undefined, limit: number): Promise<RoomPage>;
}

/** Each clause of the listing filters, by name. */
const listingConditions = {
  roomIsReady: '#state = :ready',
  roomHasFreeSlot: 'players < maxPlayers',
  /** Only sessions anyone may join are offered: not `visible` or `private`, not `closed` or `inviteOnly`. */
  sessionIsOpen:
    '(attribute_not_exists(#constants.#visibility) OR #constants.#visibility = :open) AND (attribute_not_exists(#props.#joinability) OR #props.#joinability = :open)',
} as const;

const sessionNames = {
  '#constants': 'constants',
  '#visibility': 'visibility',
  '#props': 'properties',
  '#joinability': 'joinability',
};

const listingIndex = 'gsi2';

/** `RoomListing` on the single table. */
export class RoomListStore implements RoomListing {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listOpen(query: RoomListingQuery, pageToken: string | undefined, limit: number): Promise<RoomPage> {
    const partition = keys.listingIndex(query.gameId, query.version, query.region);
    const page = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: listingIndex,
        KeyConditionExpression: 'gsi2pk = :listing',
        FilterExpression: `${listingConditions.roomIsReady} AND ${listingConditions.roomHasFreeSlot} AND ${listingConditions.sessionIsOpen}`,
        ExpressionAttributeNames: { '#state': 'state', ...sessionNames },
        ExpressionAttributeValues: { ':listing': partition, ':ready': 'ready', ':open': 'open' },
        Limit: limit,
        // Validated before DynamoDB sees it: a forged token is a 400, not a ValidationException.
        ExclusiveStartKey: decodePageToken(pageToken, partition),
      }),
    );
    // The index holds only the listed fields (table.ts): typed as exactly those.
    const rooms = (page.Items ?? []).map((item): ListedRoom => roomOf(item));
    return page.LastEvaluatedKey ? { rooms, nextToken: encodePageToken(page.LastEvaluatedKey) } : { rooms };
  }
}
