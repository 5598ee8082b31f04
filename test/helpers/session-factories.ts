import type { GameServerConfiguration } from '../../core/gameservers/configuration';
import { GameConfigurationNotFoundError } from '../../core/gameservers/errors';
import type { ConfigurationReader } from '../../core/templates/put-template';
import type { SessionTemplate } from '../../core/templates/template';

export function aConfiguration(overrides: Partial<GameServerConfiguration> = {}): GameServerConfiguration {
  return {
    gameId: 'arena',
    version: '1.0.0',
    binary: '/games/arena',
    args: [],
    env: {},
    ports: 1,
    maxPlayers: 16,
    serverSettings: {},
    spawnTimeoutS: 30,
    reservationTimeoutS: 45,
    serverScopes: [],
    commands: [],
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A dedicated template on `arena` 1.0.0; pass `hosting: 'peerHosted'` without gameId/version for the other kind. */
export function aTemplate(overrides: Partial<SessionTemplate> = {}): SessionTemplate {
  return {
    name: 'duel',
    hosting: 'dedicated',
    gameId: 'arena',
    version: '1.0.0',
    constants: { maxMembers: 2, visibility: 'open', timeouts: {}, custom: {} },
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function aPeerHostedTemplate(overrides: Partial<SessionTemplate> = {}): SessionTemplate {
  return {
    name: 'lobby',
    hosting: 'peerHosted',
    constants: { maxMembers: 4, visibility: 'visible', timeouts: {}, custom: {} },
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Configurations in memory, answering as `GameConfigurationStore` does. */
export function configurationsOf(...configurations: GameServerConfiguration[]): ConfigurationReader {
  return {
    get: (gameId, version) => {
      const found = configurations.find((c) => c.gameId === gameId && c.version === version);
      return found ? Promise.resolve(found) : Promise.reject(new GameConfigurationNotFoundError(gameId, version));
    },
  };
}
