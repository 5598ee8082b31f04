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
  /** Configurations and templates given their catalog index entry. */
  catalogIndexed: z.number().default(0),
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

/** An item of the shape an earlier release wrote, which this release reads differently. */
export type OldShapeItem =
  | { readonly kind: 'ban'; readonly ban: Ban }
  | { readonly kind: 'standbyRoom'; readonly room: UnlistedStandbyRoom }
  /** A configuration or template stored before the catalog index: no gsi3 entry, so no listing shows it. */
  | { readonly kind: 'gameConfiguration'; readonly gameId: string; readonly version: string }
  | { readonly kind: 'sessionTemplate'; readonly name: string };

const standbyRoomSchema = z.object({
  roomId: z.string(),
  gameId: z.string(),
  version: z.string(),
  region: z.string(),
  createdAt: z.string(),
});

const configurationItemSchema = z.object({ gameId: z.string(), version: z.string() });
const templateItemSchema = z.object({ name: z.string() });

/** The Scan's filter, each old shape by name. */
const oldShapes = {
  /** Every ban record: a Scan cannot tell whether its gates carry it. */
  banRecord: '#sk = :ban',
  standbyRoomUnlisted: '(#sk = :room AND #standby = :true AND attribute_not_exists(#gsi1pk))',
  configurationUncatalogued:
    '(begins_with(#pk, :game) AND begins_with(#sk, :version) AND attribute_not_exists(#gsi3pk))',
  templateUncatalogued: '(#sk = :template AND begins_with(#pk, :templatePk) AND attribute_not_exists(#gsi3pk))',
} as const;

/**
 * The marker and the pages of the one-time pass (core/upgrade/table-upgrade.ts). There is no
 * index over bans, so the pass is a Scan, filtered to the old shapes (`oldShapes`).
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
        FilterExpression: Object.values(oldShapes).join(' OR '),
        ExpressionAttributeNames: {
          '#pk': 'pk',
          '#sk': 'sk',
          '#standby': 'standby',
          '#gsi1pk': 'gsi1pk',
          '#gsi3pk': 'gsi3pk',
        },
        ExpressionAttributeValues: {
          ':ban': keys.ban('').sk,
          ':room': keys.room('').sk,
          ':true': true,
          ':game': keys.gameConfiguration('', '').pk,
          ':version': keys.gameConfiguration('', '').sk,
          ':template': keys.sessionTemplate('').sk,
          ':templatePk': keys.sessionTemplate('').pk,
        },
        ...(cursor ? { ExclusiveStartKey: cursor } : {}),
        ...(limit === undefined ? {} : { Limit: limit }),
      }),
    );
    const items = (page.Items ?? []).flatMap(oldShapeOf);
    const next = page.LastEvaluatedKey ? cursorSchema.parse(page.LastEvaluatedKey) : undefined;
    return { items, ...(next ? { next } : {}) };
  }
}

/** What the pass does with a scanned item, by its key; an item that does not parse is left alone. */
function oldShapeOf(item: Record<string, unknown>): OldShapeItem[] {
  if (item.sk === keys.ban('').sk) {
    const ban = banSchema.safeParse(item);
    return ban.success ? [{ kind: 'ban', ban: ban.data }] : [];
  }
  if (item.sk === keys.room('').sk) {
    const room = standbyRoomSchema.safeParse(item);
    return room.success ? [{ kind: 'standbyRoom', room: room.data }] : [];
  }
  if (item.sk === keys.sessionTemplate('').sk) {
    const template = templateItemSchema.safeParse(item);
    return template.success ? [{ kind: 'sessionTemplate', name: template.data.name }] : [];
  }
  const configuration = configurationItemSchema.safeParse(item);
  return configuration.success ? [{ kind: 'gameConfiguration', ...configuration.data }] : [];
}
