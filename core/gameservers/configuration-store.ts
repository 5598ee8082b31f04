import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import type { GameServerConfiguration } from './configuration';
import { GameConfigurationNotFoundError } from './errors';

/** Game server configurations by game and version: what use cases and handlers depend on. */
export interface GameConfigurations {
  /** Places or replaces the configuration of its game version. */
  put(configuration: GameServerConfiguration): Promise<void>;
  /** @throws GameConfigurationNotFoundError 404 when the version has none. */
  get(gameId: string, version: string): Promise<GameServerConfiguration>;
  /** @throws GameConfigurationNotFoundError 404 when the version had none. */
  delete(gameId: string, version: string): Promise<void>;
}

/** Game server configurations, one item per game version. */
export class GameConfigurationStore implements GameConfigurations {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(configuration: GameServerConfiguration): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.gameConfiguration(configuration.gameId, configuration.version),
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
    const { pk: _pk, sk: _sk, type: _type, ...configuration } = Item;
    return configuration as GameServerConfiguration;
  }

  /** Rooms already running keep the copy they were created from. */
  async delete(gameId: string, version: string): Promise<void> {
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
