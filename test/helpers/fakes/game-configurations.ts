import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import {
  gameCatalogListing,
  type GameConfigurations,
  type TemplateRevision,
} from '../../../core/gameservers/configuration-store';
import { GameConfigurationNotFoundError } from '../../../core/gameservers/errors';
import type { CatalogPage } from '../../../core/infra/index-store';
import { decodeIndexCursor, encodeIndexCursor } from '../../../core/infra/index-cursor';
import { keys } from '../../../core/infra/keys';

/**
 * `GameConfigurations` in memory, for unit tests. Like the table: one configuration per game
 * version, `put` replaces, reads and deletes of an absent version are 404s, and what comes
 * back is a copy (mutating it changes nothing stored).
 */
export class InMemoryGameConfigurations implements GameConfigurations {
  private readonly items = new Map<string, GameServerConfiguration>();

  async put(configuration: GameServerConfiguration): Promise<void> {
    this.items.set(keyOf(configuration.gameId, configuration.version), structuredClone(configuration));
  }

  /** As the table's condition: only over the very configuration the revision was registered for. */
  async followTemplate(configuration: GameServerConfiguration, revision: TemplateRevision): Promise<boolean> {
    const key = keyOf(configuration.gameId, configuration.version);
    const stored = this.items.get(key);
    if (stored?.updatedAt !== configuration.updatedAt || stored.taskDefinition !== configuration.taskDefinition) {
      return false;
    }
    this.items.set(key, { ...stored, ...revision });
    return true;
  }

  async get(gameId: string, version: string): Promise<GameServerConfiguration> {
    const configuration = this.items.get(keyOf(gameId, version));
    if (!configuration) throw new GameConfigurationNotFoundError(gameId, version);
    return structuredClone(configuration);
  }

  /** Always the latest: within any bound. */
  recent(gameId: string, version: string): Promise<GameServerConfiguration> {
    return this.get(gameId, version);
  }

  async delete(gameId: string, version: string): Promise<void> {
    if (!this.items.delete(keyOf(gameId, version))) throw new GameConfigurationNotFoundError(gameId, version);
  }

  /** Every configuration here is in the catalog already. */
  async addToCatalog(): Promise<boolean> {
    return false;
  }

  /** The store's order and tokens: by the catalog entry `<gameId>#<version>`, `limit` a page. */
  async list(pageToken: string | undefined, limit: number): Promise<CatalogPage<GameServerConfiguration>> {
    const entryOf = (c: GameServerConfiguration) => keys.gameCatalogEntry(c.gameId, c.version).gsi3sk;
    const after = decodeIndexCursor(pageToken, gameCatalogListing)?.after?.gsi3sk;
    const remaining = [...this.items.values()]
      .filter((c) => after === undefined || entryOf(c) > after)
      .sort((a, b) => (entryOf(a) < entryOf(b) ? -1 : 1));
    const items = remaining.slice(0, limit).map((c) => structuredClone(c));
    const last = items.at(-1);
    if (remaining.length <= limit || !last) return { items };
    const entry = {
      ...keys.gameConfiguration(last.gameId, last.version),
      ...keys.gameCatalogEntry(last.gameId, last.version),
    };
    return { items, nextToken: encodeIndexCursor({ partition: keys.gameCatalogIndex, after: entry }) };
  }
}

const keyOf = (gameId: string, version: string) => JSON.stringify([gameId, version]);
