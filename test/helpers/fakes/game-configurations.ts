import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { GameConfigurations, TemplateRevision } from '../../../core/gameservers/configuration-store';
import { GameConfigurationNotFoundError } from '../../../core/gameservers/errors';

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
}

const keyOf = (gameId: string, version: string) => JSON.stringify([gameId, version]);
