import { GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { banSchema, type Ban } from '../abuse/bans';
import { isConditionFailure } from '../infra/dependency-errors';
import { keys } from '../infra/keys';

/** Where a scan stopped: the key of the last item it read (a Scan's `LastEvaluatedKey`). */
const cursorSchema = z.record(z.string(), z.string());

/** How far the table's upgrade got, stored in its marker item (core/infra/keys.ts `upgradeMarker`). */
const markerSchema = z.object({
  state: z.enum(['running', 'done']),
  /** Where the next page starts; absent once done. */
  cursor: cursorSchema.optional(),
  /** Pages read so far: a run saves its progress only if no other run saved since it read this. */
  pages: z.number(),
  bansMirrored: z.number(),
  bansDeleted: z.number(),
  standbyListed: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
});

export type UpgradeMarker = z.output<typeof markerSchema>;
type Cursor = z.output<typeof cursorSchema>;

/** A standby room as the previous release wrote it: not listed in the standby index. */
interface UnlistedStandbyRoom {
  readonly roomId: string;
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
  readonly createdAt: string;
}

/** An item of the shape the previous release wrote, which this release reads differently. */
export type OldShapeItem =
  { readonly kind: 'ban'; readonly ban: Ban } | { readonly kind: 'standbyRoom'; readonly room: UnlistedStandbyRoom };

const standbyRoomSchema = z.object({
  roomId: z.string(),
  gameId: z.string(),
  version: z.string(),
  region: z.string(),
  createdAt: z.string(),
});

/**
 * The marker and the pages of the one-time pass (core/upgrade/table-upgrade.ts). There is no
 * index over bans, so the pass is a Scan, filtered to the two old shapes: every ban record (a
 * Scan cannot tell whether its gates carry it) and every standby room without a gsi1 key.
 */
export class UpgradeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {}

  /** Strongly consistent: a run that saved a moment ago is seen. */
  async marker(): Promise<UpgradeMarker | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.upgradeMarker(this.name), ConsistentRead: true }),
    );
    return Item ? markerSchema.parse(Item) : undefined;
  }

  /**
   * Saves `next` only while the marker is still `previous` (by its page count): false when
   * another run saved meanwhile, which is then ahead of this one.
   */
  async advance(previous: UpgradeMarker | undefined, next: UpgradeMarker): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.upgradeMarker(this.name), type: 'upgrade', ...markerSchema.parse(next) },
          ...(previous
            ? {
                ConditionExpression: '#pages = :pages',
                ExpressionAttributeNames: { '#pages': 'pages' },
                ExpressionAttributeValues: { ':pages': previous.pages },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** One Scan page from `cursor`: its old-shape items, and where the next page starts (none: the table is done). */
  async page(cursor: Cursor | undefined, limit?: number): Promise<{ items: OldShapeItem[]; next?: Cursor }> {
    const page = await this.db.send(
      new ScanCommand({
        TableName: this.tableName,
        FilterExpression: '#sk = :ban OR (#sk = :room AND #standby = :true AND attribute_not_exists(#gsi1pk))',
        ExpressionAttributeNames: { '#sk': 'sk', '#standby': 'standby', '#gsi1pk': 'gsi1pk' },
        ExpressionAttributeValues: { ':ban': keys.ban('').sk, ':room': keys.room('').sk, ':true': true },
        ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        ...(limit === undefined ? {} : { Limit: limit }),
      }),
    );
    const items = (page.Items ?? []).flatMap((item): OldShapeItem[] => {
      if (item.sk === keys.ban('').sk) {
        const ban = banSchema.safeParse(item);
        return ban.success ? [{ kind: 'ban', ban: ban.data }] : [];
      }
      const room = standbyRoomSchema.safeParse(item);
      return room.success ? [{ kind: 'standbyRoom', room: room.data }] : [];
    });
    const next = page.LastEvaluatedKey ? cursorSchema.parse(page.LastEvaluatedKey) : undefined;
    return { items, ...(next ? { next } : {}) };
  }
}
