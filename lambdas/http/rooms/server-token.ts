import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { Platform } from '../../dependencies';

/** Server tokens live as long as a game may reasonably run; the sidecar never logs them. */
const serverTokenTtlS = 24 * 3600;

/**
 * Mints a game server's own token (`login_access_token`): the room's server account, the
 * `game-server` scope and the configuration's `serverScopes` (what it may grant players).
 */
export function serverTokenMinter(
  p: Platform,
  configuration: GameServerConfiguration,
): (roomId: string) => Promise<string> {
  return (roomId) =>
    p.signToken({
      account: `server:${roomId}`,
      scopes: ['game-server', ...configuration.serverScopes],
      ttlS: serverTokenTtlS,
      extra: { room: roomId },
    });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
