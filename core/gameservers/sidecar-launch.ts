import type { SidecarEnvironmentVariables } from './sidecar-environment';
import type { SpawnRequest } from './spawner';

/** Platform-wide settings every sidecar gets, whatever starts it. */
export interface SidecarPlatformSettings {
  readonly region: string;
  readonly controllerRequestQueueUrl: string;
  readonly replyQueuePrefix: string;
  readonly sqsEndpoint?: string;
  readonly discoveryServices: Readonly<Record<string, string>>;
  readonly statusIntervalS?: number;
  readonly statusTimeoutS?: number;
  readonly heartbeatIntervalS?: number;
}

/**
 * The sidecar's environment for one spawn. The local fleet passes it to a child process,
 * the ECS adapter as container overrides: one function, so both start the same sidecar.
 */
export function sidecarEnvironment(
  request: SpawnRequest,
  ports: readonly number[],
  binary: string,
  settings: SidecarPlatformSettings,
): SidecarEnvironmentVariables {
  const { configuration } = request;
  const optional = (value: number | undefined) => (value === undefined ? undefined : String(value));
  return {
    ROOM_ID: request.roomId,
    ROOM_EPOCH: optional(request.epoch),
    AWS_REGION: settings.region,
    SQS_ENDPOINT: settings.sqsEndpoint,
    CONTROLLER_REQUEST_QUEUE_URL: settings.controllerRequestQueueUrl,
    REPLY_QUEUE_PREFIX: settings.replyQueuePrefix,
    GAME_BINARY: binary,
    GAME_ARGS: JSON.stringify(configuration.args),
    GAME_PORTS: ports.join(','),
    GAME_ENV: JSON.stringify(configuration.env),
    GAME_MAX_PLAYERS: String(request.maxPlayers),
    ROOM_SETTINGS: JSON.stringify(request.roomSettings),
    SERVER_SETTINGS: JSON.stringify(configuration.serverSettings),
    DISCOVERY_SERVICES: JSON.stringify(settings.discoveryServices),
    LOGIN_ACCESS_TOKEN: request.loginAccessToken,
    COMMAND_WHITELIST: JSON.stringify(configuration.commands),
    STANDBY: request.standby ? '1' : undefined,
    ZMQ_TRANSPORT: undefined,
    GAME_LAUNCH: undefined,
    ZMQ_ENDPOINT: undefined,
    SPAWN_TIMEOUT_S: String(configuration.spawnTimeoutS),
    STATUS_INTERVAL_S: optional(settings.statusIntervalS),
    STATUS_TIMEOUT_S: optional(settings.statusTimeoutS),
    HEARTBEAT_INTERVAL_S: optional(settings.heartbeatIntervalS),
    PLATFORM_REPLY_TIMEOUT_S: undefined,
    KILL_GRACE_S: undefined,
    ROOM_MAX_LIFETIME_S: optional(request.bounds?.maxLifetimeS),
    ROOM_EMPTY_GRACE_S: optional(request.bounds?.emptyGraceS),
    ROOM_MEMBER_HOLD_S: optional(request.bounds?.memberHoldS),
    ROOM_BOUND_MARGIN_S: undefined,
    PLATFORM_UNREACHABLE_S: undefined,
    // Secrets: each spawner passes them its own way (stdin locally, the override on ECS).
    SIDECAR_KEY: undefined,
    AWS_CREDENTIAL_EXPIRATION: undefined,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
  };
}

/**
 * The environment of the game process, exactly as docs/game-server-protocol.md lists it: the
 * protocol's variables and the configuration's own, nothing of the platform's.
 */
export function gameProcessEnvironment(options: {
  /** The room the game serves: for its own logs and for any call it makes about the room. */
  roomId: string;
  loginAccessToken: string;
  discoveryServices: Readonly<Record<string, string>>;
  maxPlayers: number;
  roomSettings: Readonly<Record<string, unknown>>;
  serverSettings: Readonly<Record<string, unknown>>;
  configured: Readonly<Record<string, string>>;
  /** A warm-pool start: the game waits for `assign` (docs/game-server-protocol.md "Standby servers"). */
  standby?: boolean;
}): Record<string, string> {
  // `standby` is the protocol's: a configured one never reaches the game, set or not.
  const { standby: _configuredStandby, ...configured } = options.configured;
  return {
    ...configured,
    ...(options.standby ? { standby: '1' } : {}),
    room_id: options.roomId,
    login_access_token: options.loginAccessToken,
    discovery_services: JSON.stringify(options.discoveryServices),
    game_max_players: String(options.maxPlayers),
    room_settings: JSON.stringify(options.roomSettings),
    server_settings: JSON.stringify(options.serverSettings),
  };
}

/** `<binary> <zeromq endpoint> <ports> <other…>`, the protocol's command line. */
export function gameCommandLine(
  binary: string,
  endpoint: string,
  ports: readonly number[],
  args: readonly string[],
): string[] {
  return [binary, endpoint, ports.join(','), ...args];
}
