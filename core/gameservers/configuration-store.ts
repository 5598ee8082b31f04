import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { addCatalogEntry, readCatalogPage, type CatalogPage } from '../infra/index-store';
import { isConditionFailure } from '../infra/dependency-errors';
import type { IndexListing } from '../infra/index-cursor';
import { keys } from '../infra/keys';
import type { PlatformCache } from '../infra/platform-cache';
import type { GameServerConfiguration } from './configuration';
import { GameConfigurationNotFoundError } from './errors';
import { gameIdSchema, gameVersionSchema } from './schema';

/** A configuration's task definition revision and the deployed template it was derived from. */
export type TemplateRevision = Readonly<{ taskDefinition: string; templateTaskDefinition: string }>;

/** Game server configurations by game and version: what use cases and handlers depend on. */
export interface GameConfigurations {
  /**
   * The configuration as this process read it at most the `configuration` bound of
   * core/infra/platform-cache.ts ago (this process's own writes are seen at once): for a
   * create's path, where a change by an admin may take that long to arrive.
   * @throws GameConfigurationNotFoundError 404 when the version has none.
   */
  recent(gameId: string, version: string): Promise<GameServerConfiguration>;
  /** Places or replaces the configuration of its game version. */
  put(configuration: GameServerConfiguration): Promise<void>;
  /**
   * Records `revision`, registered from the deployed template for `configuration`, if the
   * stored configuration is still that one (the same `updatedAt` and `taskDefinition`): an
   * admin's PUT since, or another process that recorded its own revision first, wins.
   * @returns whether this revision was recorded.
   */
  followTemplate(configuration: GameServerConfiguration, revision: TemplateRevision): Promise<boolean>;
  /** @throws GameConfigurationNotFoundError 404 when the version has none. */
  get(gameId: string, version: string): Promise<GameServerConfiguration>;
  /** @throws GameConfigurationNotFoundError 404 when the version had none. */
  delete(gameId: string, version: string): Promise<void>;
  /**
   * Every configuration, `limit` a page in game and version order, through the catalog index
   * (no scan); a configuration put a moment ago may show a moment later.
   * @throws RequestInvalidError 400 naming `query.nextToken` for a token this listing did not issue.
   */
  list(pageToken: string | undefined, limit: number): Promise<CatalogPage<GameServerConfiguration>>;
  /**
   * Gives a configuration stored before the catalog index its entry (core/upgrade/table-upgrade.ts),
   * only while it is there without one. @returns whether this call added it.
   */
  addToCatalog(gameId: string, version: string): Promise<boolean>;
}

/** Tokens of the configurations' catalog: an entry `<gameId>#<version>` is that version's item. */
export const gameCatalogListing = {
  partitions: [keys.gameCatalogIndex],
  itemKey: (_partition: string, sortKey: string) => {
    const [gameId = '', version = '', ...rest] = sortKey.split('#');
    const valid =
      rest.length === 0 && gameIdSchema.safeParse(gameId).success && gameVersionSchema.safeParse(version).success;
    return valid ? keys.gameConfiguration(gameId, version) : undefined;
  },
} as const satisfies IndexListing;

/**
 * Game server configurations, one item per game version. `get` reads the item; `recent`
 * serves what this process read within the cache's `configuration` bound (a create's path:
 * one read fewer), and this process's own writes are seen by both at once.
 */
export class GameConfigurationStore implements GameConfigurations {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The process's one cache (`Platform.cache`): a write through any store of the process is read at once. */
    private readonly cache: PlatformCache,
  ) {}

  async recent(gameId: string, version: string): Promise<GameServerConfiguration> {
    const read = this.cache.read('configuration', cacheKey(gameId, version), () => this.get(gameId, version));
    // A copy each: callers share the read, not the object.
    return structuredClone(await read);
  }

  async put(configuration: GameServerConfiguration): Promise<void> {
    // Forgotten after the write: a read that began before it and ends after it is dropped too.
    await this.forgettingAfter(cacheKey(configuration.gameId, configuration.version), () => this.write(configuration));
  }

  async followTemplate(configuration: GameServerConfiguration, revision: TemplateRevision): Promise<boolean> {
    let recorded = false;
    await this.forgettingAfter(cacheKey(configuration.gameId, configuration.version), async () => {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.gameConfiguration(configuration.gameId, configuration.version),
            UpdateExpression: 'SET taskDefinition = :next, templateTaskDefinition = :template',
            ConditionExpression: 'updatedAt = :updatedAt AND taskDefinition = :previous',
            ExpressionAttributeValues: {
              ':next': revision.taskDefinition,
              ':template': revision.templateTaskDefinition,
              ':updatedAt': configuration.updatedAt,
              ':previous': configuration.taskDefinition ?? null,
            },
          }),
        );
        recorded = true;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    });
    return recorded;
  }

  private async write(configuration: GameServerConfiguration): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.gameConfiguration(configuration.gameId, configuration.version),
          ...keys.gameCatalogEntry(configuration.gameId, configuration.version),
          type: 'gameConfiguration',
          ...configuration,
        },
      }),
    );
  }

  async get(gameId: string, version: string): Promise<GameServerConfiguration> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.gameConfiguration(gameId, version), ConsistentRead: true }),
    );
    if (!Item) throw new GameConfigurationNotFoundError(gameId, version);
    return configurationOf(Item);
  }

  async list(pageToken: string | undefined, limit: number): Promise<CatalogPage<GameServerConfiguration>> {
    const page = await readCatalogPage(this.db, this.tableName, gameCatalogListing, { pageToken, limit });
    return { ...page, items: page.items.map(configurationOf) };
  }

  addToCatalog(gameId: string, version: string): Promise<boolean> {
    return addCatalogEntry(
      this.db,
      this.tableName,
      keys.gameConfiguration(gameId, version),
      keys.gameCatalogEntry(gameId, version),
    );
  }

  /** Rooms already running keep the copy they were created from. */
  async delete(gameId: string, version: string): Promise<void> {
    await this.forgettingAfter(cacheKey(gameId, version), () => this.remove(gameId, version));
  }

  private async forgettingAfter(key: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } finally {
      this.cache.forget('configuration', key);
    }
  }

  private async remove(gameId: string, version: string): Promise<void> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.gameConfiguration(gameId, version),
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (!Attributes) throw new GameConfigurationNotFoundError(gameId, version);
  }
}

const cacheKey = (gameId: string, version: string) => JSON.stringify([gameId, version]);

/** The configuration an item holds: the item without its table and index keys. */
function configurationOf(item: Record<string, unknown>): GameServerConfiguration {
  const { pk: _pk, sk: _sk, type: _type, gsi3pk: _gsi3pk, gsi3sk: _gsi3sk, ...configuration } = item;
  return configuration as unknown as GameServerConfiguration;
}
