import { gameCommandLine, gameProcessEnvironment } from '../../core/gameservers/sidecar-launch';
import type { SidecarEnvironment } from '../../core/gameservers/sidecar-environment';

/** The only variables of the sidecar's own environment a game process inherits. */
const inheritedVariables = ['PATH', 'HOME', 'LANG'] as const;

export interface GameLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * How the game is started, exactly as docs/game-server-protocol.md says:
 * `<binary> <zeromq endpoint> <ports> <other…>`, with the protocol's variables, the
 * configuration's own, and PATH/HOME/LANG. Nothing else of the sidecar's environment (its
 * AWS credentials, queue URLs, endpoints) reaches the game.
 */
export function gameLaunch(
  env: SidecarEnvironment,
  endpoint: string,
  host: Readonly<Record<string, string | undefined>>,
): GameLaunch {
  const inherited: Record<string, string> = {};
  for (const name of inheritedVariables) {
    const value = host[name];
    if (value !== undefined) inherited[name] = value;
  }
  const [command, ...args] = gameCommandLine(
    env.GAME_BINARY,
    endpoint,
    env.GAME_PORTS.split(',').map(Number),
    env.GAME_ARGS,
  );
  return {
    command: command ?? env.GAME_BINARY,
    args,
    env: {
      ...inherited,
      // The protocol's variables win over configured ones of the same name.
      ...gameProcessEnvironment({
        roomId: env.ROOM_ID,
        loginAccessToken: env.LOGIN_ACCESS_TOKEN,
        discoveryServices: env.DISCOVERY_SERVICES,
        maxPlayers: env.GAME_MAX_PLAYERS,
        roomSettings: env.ROOM_SETTINGS,
        serverSettings: env.SERVER_SETTINGS,
        configured: env.GAME_ENV,
        standby: env.STANDBY === '1',
      }),
    },
  };
}
