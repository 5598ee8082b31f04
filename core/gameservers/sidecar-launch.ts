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
    ZMQ_TRANSPORT: undefined,
    SPAWN_TIMEOUT_S: String(configuration.spawnTimeoutS),
    STATUS_INTERVAL_S: optional(settings.statusIntervalS),
    STATUS_TIMEOUT_S: optional(settings.statusTimeoutS),
    HEARTBEAT_INTERVAL_S: optional(settings.heartbeatIntervalS),
    PLATFORM_REPLY_TIMEOUT_S: undefined,
    KILL_GRACE_S: undefined,
  };
}
