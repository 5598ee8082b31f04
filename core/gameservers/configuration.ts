import type { GameServerConfigurationBody } from './schema';

/** A stored game server configuration: one version of one game, and how to run it. */
export interface GameServerConfiguration extends GameServerConfigurationBody {
  readonly gameId: string;
  readonly version: string;
  readonly updatedAt: string;
}
