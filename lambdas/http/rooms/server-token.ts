import { gameServerTokenClaims } from '../../../core/auth/token-model';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { Platform } from '../../dependencies';

/**
 * Mints a game server's own token (`login_access_token`): the room's server account, the
 * game-server audience and the configuration's `serverScopes` without any privileged scope
 * (what it may grant players). See core/auth/token-model.ts.
 */
export function serverTokenMinter(
  p: Platform,
  configuration: GameServerConfiguration,
): (roomId: string) => Promise<string> {
  return (roomId) => p.signToken(gameServerTokenClaims(roomId, configuration.serverScopes));
}
