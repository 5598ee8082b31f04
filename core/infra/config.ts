import * as z from 'zod';
import { defaultPlatformIssuer, identityProviderConflict } from '../auth/token-model';
import { heartbeatDefaults, heartbeatTimeoutFor, minHeartbeatTimeoutIntervals } from '../protocol/heartbeat';
import { maxRateLimit } from '../abuse/rate-limit';

/**
 * Platform settings, parsed once from the environment into a typed object. Every handler
 * reads settings from here; nothing else in the code base reads `process.env`.
 */
const environmentSchema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  TABLE_NAME: z.string().min(3),
  /** Set only when talking to DynamoDB Local. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  /** Set only when talking to the SQS emulator. */
  SQS_ENDPOINT: z.url().optional(),
  /**
   * Deployed, in functions that send to live-session sockets: the WebSocket API stage's
   * connection management endpoint, `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}`.
   */
  LIVE_ENDPOINT: z.url().optional(),
  /** Deployed, in the console's function: the WebSocket URL clients connect to (the stack's `LiveUrl`). */
  LIVE_URL: z.url().optional(),
  QUEUE_URL_CONTROLLER_REQUESTS: z.string().min(1).optional(),
  /**
   * The identity provider's `iss`. Without AUTH_JWKS it must be an https URL: its OpenID
   * discovery document names the key set, as for API Gateway's JWT authorizer (deployed).
   */
  AUTH_ISSUER: z.string().min(1),
  /** The API's audience; every player and admin token must carry it (`aud`, or `client_id`). */
  AUTH_AUDIENCE: z.string().min(1).optional(),
  /** `iss` of the tokens the platform mints for game servers and rooms; never the identity provider's. */
  // At most 128: it is in every game server token, inside RunTask's 8,192-character overrides.
  PLATFORM_TOKEN_ISSUER: z.string().min(1).max(128).default(defaultPlatformIssuer),
  /** The identity provider's key set inline, as JSON (local cloud and tests): no discovery then. */
  AUTH_JWKS: z.string().min(2).optional(),
  /** Private JWK that signs dev tokens. Only the local cloud gives it, in memory (`provideConfigSecrets`). */
  DEV_SIGNING_JWK: z.string().min(2).optional(),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** Private JWK with which the platform mints game-server and joined-player tokens (local cloud, tests: in memory). */
  TOKEN_SIGNING_JWK: z.string().min(2).optional(),
  /** The same key kept in Secrets Manager (deployed): read once per cold start. */
  TOKEN_SIGNING_JWK_SECRET_ARN: z.string().min(1).optional(),
  /** The region name rooms of this deployment get (defaults to AWS_REGION). */
  ROOM_REGION: z.string().min(1).max(32).optional(),
  SPAWNER: z.enum(['ecs', 'local']).default('ecs'),
  /** Deployed: the role each game server's sidecar gets a session of, scoped to its room (STS). */
  SIDECAR_ROLE_ARN: z.string().min(1).optional(),
  /** ARN of the controller-requests queue: the one queue a sidecar session may send to. */
  QUEUE_ARN_CONTROLLER_REQUESTS: z.string().min(1).optional(),
  /**
   * Deployed, in functions that start game servers: the Secrets Manager secret the sidecars'
   * secrets are sealed under (core/gameservers/sidecar-envelope.ts); ECS gives it to the
   * controller container too. Read when spawning only.
   */
  SIDECAR_ENVELOPE_KEY_SECRET_ARN: z.string().min(1).optional(),
  REPLY_QUEUE_PREFIX: z.string().min(1).max(60).default('roomkeeper-reply-'),
  ECS_CLUSTER: z.string().optional(),
  ECS_TASK_DEFINITION: z.string().optional(),
  ECS_SUBNETS: z.string().optional(),
  ECS_SECURITY_GROUPS: z.string().optional(),
  ECS_CONTROLLER_CONTAINER: z.string().default('controller'),
  /**
   * How long POST /v1/rooms (and a join of a spawning room) holds the caller for `inited`
   * before answering 202. Deployed on ECS: 5 s (docs/ecs-fleet.md "Spawn times").
   */
  CREATE_WAIT_S: z.coerce.number().positive().max(28).default(25),
  /** `Retry-After` of a 202 for a room still spawning. Deployed on ECS: 5 s (docs/ecs-fleet.md "Spawn times"). */
  SPAWN_POLL_AFTER_S: z.coerce.number().int().min(1).max(60).default(1),
  /** The spawn deadline of configurations that set no `spawnTimeoutS`. Deployed on ECS: 120 s. */
  DEFAULT_SPAWN_TIMEOUT_S: z.coerce.number().int().min(1).max(600).default(30),
  /** Game ports the fleet opens per server (the ECS security group); configurations asking more are refused. */
  FLEET_GAME_PORTS: z.coerce.number().int().min(1).max(16).default(16),
  /** Deployed: the private ECR repositories the tasks may pull (comma-separated; empty: none). Unset: no check. */
  FLEET_ECR_REPOSITORIES: z.string().optional(),
  /**
   * A ready room silent this long takes no joins, and the sweeper fails it once it knows the
   * heartbeat pipeline is current. Unset: five heartbeat intervals, at least 10 s.
   */
  HEARTBEAT_TIMEOUT_S: z.coerce.number().positive().optional(),
  /** Passed to sidecars when set (they default to the same 2 s); unset, the timeout follows it. */
  HEARTBEAT_INTERVAL_S: z.coerce.number().positive().optional(),
  /** How often the sweeper is scheduled (EventBridge: every minute), to tell a late run. */
  SWEEP_INTERVAL_S: z.coerce.number().positive().default(60),
  /**
   * How long a failed or closed room (members included: one item) stays readable before its
   * TTL lets DynamoDB delete it. TTL deletion is garbage collection only; nothing depends on it.
   */
  ENDED_ROOM_RETENTION_S: z.coerce.number().int().positive().default(86_400),
  STATUS_INTERVAL_S: z.coerce.number().positive().optional(),
  STATUS_TIMEOUT_S: z.coerce.number().positive().optional(),
  /** Joins (room join and matchmaking) one account may start in any 60 s span (a sliding window). */
  JOIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(maxRateLimit).default(20),
  /** Rooms one account may create in any 60 s span (a sliding window). */
  CREATE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(maxRateLimit).default(10),
  /** Commands one account may send to its rooms' game servers in any 60 s span. */
  COMMAND_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(maxRateLimit).default(60),
  /**
   * Reads of the owner's message long poll one account may start in any 60 s span: each holds
   * a request open for up to 20 s and reads the table several times a second meanwhile.
   */
  MESSAGE_POLL_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(maxRateLimit).default(120),
  /** Invite requests one account may make in any 60 s span: each reserves slots for others. */
  INVITE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().max(maxRateLimit).default(30),
  /** Cost bounds (docs/cost-bounds.md): a ready room with no live member this long is ended. */
  EMPTY_ROOM_GRACE_S: z.coerce.number().int().positive().max(86_400).default(60),
  /** A room older than this is ended, players or not; a configuration's `maxLifetimeS` overrides it. */
  MAX_ROOM_LIFETIME_S: z.coerce.number().int().positive().max(604_800).default(21_600),
  /** Game servers running at once across the deployment; a create beyond it gets 503 NO_HEALTHY_HOST. */
  MAX_RUNNING_SERVERS: z.coerce.number().int().positive().default(200),
  /** Game servers of one configuration running at once; a configuration's `maxServers` overrides it. */
  MAX_SERVERS_PER_CONFIGURATION: z.coerce.number().int().positive().default(100),
  /** How old a task or reply queue without a live room must be before the sweeper removes it. */
  ORPHAN_GRACE_S: z.coerce.number().int().positive().default(300),
});

export type PlatformConfig = Readonly<{
  region: string;
  tableName: string;
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  /** The WebSocket API's connection management endpoint (core/live/connection-sender.ts). */
  liveEndpoint?: string;
  /** The live-session WebSocket's URL for clients, where the process knows it (the console's function). */
  liveUrl?: string;
  queueUrls: Readonly<{ controllerRequests?: string }>;
  auth: Readonly<{
    issuer: string;
    audience?: string;
    jwks?: string;
    devSigningJwk?: string;
    /** Issuer of platform-minted tokens, which the player and admin API refuse. */
    platformIssuer: string;
  }>;
  maxBodyBytes: number;
  tokenSigningJwk?: string;
  tokenSigningJwkSecretArn?: string;
  roomRegion: string;
  spawner: 'ecs' | 'local';
  /** Both set when deployed: sidecars then get scoped STS credentials instead of a task role. */
  sidecarRole?: Readonly<{ roleArn: string; requestQueueArn: string }>;
  /** Deployed, where game servers are started on ECS: the secret their sidecars' secrets are sealed under. */
  sidecarEnvelopeKeySecretArn?: string;
  replyQueuePrefix: string;
  ecs: Readonly<{
    cluster?: string;
    taskDefinition?: string;
    subnets: readonly string[];
    securityGroups: readonly string[];
    controllerContainer: string;
  }>;
  createWaitS: number;
  /** `Retry-After` of a 202 for a room still spawning. */
  spawnPollAfterS: number;
  /** What configurations may ask of this deployment's fleet, and its defaults (core/gameservers/fleet-fit.ts). */
  fleet: Readonly<{ maxPorts: number; defaultSpawnTimeoutS: number; ecrRepositories?: readonly string[] }>;
  heartbeatTimeoutS: number;
  heartbeatIntervalS: number;
  sweepIntervalS: number;
  endedRoomRetentionS: number;
  sidecar: Readonly<{ heartbeatIntervalS?: number; statusIntervalS?: number; statusTimeoutS?: number }>;
  abuse: Readonly<{
    joinsPerMinute: number;
    createsPerMinute: number;
    commandsPerMinute: number;
    messagePollsPerMinute: number;
    invitesPerMinute: number;
  }>;
  costBounds: CostBoundDefaults;
}>;

/** The deployment's cost bounds (docs/cost-bounds.md); configurations may override the per-room ones. */
export type CostBoundDefaults = Readonly<{
  emptyRoomGraceS: number;
  maxLifetimeS: number;
  maxRunningServers: number;
  maxServersPerConfiguration: number;
  orphanGraceS: number;
}>;

export class ConfigInvalidError extends Error {
  override readonly name = 'ConfigInvalidError';
  constructor(
    readonly variables: string[],
    detail: string,
  ) {
    super(`Invalid platform configuration (${variables.join(', ')}): ${detail}`);
  }
}

/**
 * The settings that are secrets (the private JWKs). Deployed, Lambda's environment holds
 * TOKEN_SIGNING_JWK_SECRET_ARN and the key itself is read from Secrets Manager. The local
 * cloud and tests hand the keys over in memory (`provideConfigSecrets`) instead of through
 * `process.env`: a child process inherits `process.env` unless told otherwise, and a game
 * (same user) can read any same-user process's `/proc/<pid>/environ`.
 */
export type ConfigSecrets = Readonly<Partial<Record<'DEV_SIGNING_JWK' | 'TOKEN_SIGNING_JWK', string>>>;

/** `secrets` take precedence over variables of the same name in `env`. */
export function parseConfig(env: NodeJS.ProcessEnv, secrets: ConfigSecrets = {}): PlatformConfig {
  return platformConfigOf(validEnvironment(env, secrets));
}

type Environment = z.infer<typeof environmentSchema>;

/** The variables, each valid and together consistent; ConfigInvalidError names those that are not. */
function validEnvironment(env: NodeJS.ProcessEnv, secrets: ConfigSecrets): Environment {
  const parsed = environmentSchema.safeParse({ ...env, ...definedOnly(secrets) });
  if (!parsed.success) {
    const variables = parsed.error.issues.map((issue) => String(issue.path[0]));
    throw new ConfigInvalidError(
      variables,
      parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join('; '),
    );
  }
  const e = parsed.data;
  const conflict = identityProviderConflict(
    { issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE },
    e.PLATFORM_TOKEN_ISSUER,
  );
  if (conflict) throw new ConfigInvalidError(['AUTH_ISSUER', 'AUTH_AUDIENCE', 'PLATFORM_TOKEN_ISSUER'], conflict);
  if (!e.AUTH_JWKS && !isHttpsUrl(e.AUTH_ISSUER)) {
    throw new ConfigInvalidError(
      ['AUTH_ISSUER', 'AUTH_JWKS'],
      "without AUTH_JWKS, AUTH_ISSUER must be an https URL whose /.well-known/openid-configuration names the identity provider's key set",
    );
  }
  checkHeartbeatTimeout(e);
  if (Boolean(e.SIDECAR_ROLE_ARN) !== Boolean(e.QUEUE_ARN_CONTROLLER_REQUESTS)) {
    throw new ConfigInvalidError(['SIDECAR_ROLE_ARN', 'QUEUE_ARN_CONTROLLER_REQUESTS'], 'set both or neither');
  }
  return e;
}

/** A timeout shorter than two intervals would read one late heartbeat as a dead room. */
function checkHeartbeatTimeout(e: Environment): void {
  const intervalS = e.HEARTBEAT_INTERVAL_S ?? heartbeatDefaults.intervalS;
  if (e.HEARTBEAT_TIMEOUT_S !== undefined && e.HEARTBEAT_TIMEOUT_S < minHeartbeatTimeoutIntervals * intervalS) {
    throw new ConfigInvalidError(
      ['HEARTBEAT_TIMEOUT_S', 'HEARTBEAT_INTERVAL_S'],
      `the heartbeat timeout must be at least ${minHeartbeatTimeoutIntervals} intervals (${minHeartbeatTimeoutIntervals * intervalS} s)`,
    );
  }
}

function platformConfigOf(e: Environment): PlatformConfig {
  return {
    region: e.AWS_REGION,
    tableName: e.TABLE_NAME,
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    sqsEndpoint: e.SQS_ENDPOINT,
    ...(e.LIVE_ENDPOINT ? { liveEndpoint: e.LIVE_ENDPOINT } : {}),
    ...(e.LIVE_URL ? { liveUrl: e.LIVE_URL } : {}),
    queueUrls: { controllerRequests: e.QUEUE_URL_CONTROLLER_REQUESTS },
    auth: {
      issuer: e.AUTH_ISSUER,
      audience: e.AUTH_AUDIENCE,
      jwks: e.AUTH_JWKS,
      devSigningJwk: e.DEV_SIGNING_JWK,
      platformIssuer: e.PLATFORM_TOKEN_ISSUER,
    },
    maxBodyBytes: e.MAX_BODY_BYTES,
    tokenSigningJwk: e.TOKEN_SIGNING_JWK,
    tokenSigningJwkSecretArn: e.TOKEN_SIGNING_JWK_SECRET_ARN,
    roomRegion: e.ROOM_REGION ?? e.AWS_REGION,
    spawner: e.SPAWNER,
    ...(e.SIDECAR_ROLE_ARN && e.QUEUE_ARN_CONTROLLER_REQUESTS
      ? { sidecarRole: { roleArn: e.SIDECAR_ROLE_ARN, requestQueueArn: e.QUEUE_ARN_CONTROLLER_REQUESTS } }
      : {}),
    ...(e.SIDECAR_ENVELOPE_KEY_SECRET_ARN ? { sidecarEnvelopeKeySecretArn: e.SIDECAR_ENVELOPE_KEY_SECRET_ARN } : {}),
    replyQueuePrefix: e.REPLY_QUEUE_PREFIX,
    ecs: {
      cluster: e.ECS_CLUSTER,
      taskDefinition: e.ECS_TASK_DEFINITION,
      subnets: list(e.ECS_SUBNETS),
      securityGroups: list(e.ECS_SECURITY_GROUPS),
      controllerContainer: e.ECS_CONTROLLER_CONTAINER,
    },
    createWaitS: e.CREATE_WAIT_S,
    spawnPollAfterS: e.SPAWN_POLL_AFTER_S,
    fleet: {
      maxPorts: e.FLEET_GAME_PORTS,
      defaultSpawnTimeoutS: e.DEFAULT_SPAWN_TIMEOUT_S,
      ...(e.FLEET_ECR_REPOSITORIES === undefined ? {} : { ecrRepositories: list(e.FLEET_ECR_REPOSITORIES) }),
    },
    heartbeatTimeoutS:
      e.HEARTBEAT_TIMEOUT_S ?? heartbeatTimeoutFor(e.HEARTBEAT_INTERVAL_S ?? heartbeatDefaults.intervalS),
    heartbeatIntervalS: e.HEARTBEAT_INTERVAL_S ?? heartbeatDefaults.intervalS,
    sweepIntervalS: e.SWEEP_INTERVAL_S,
    endedRoomRetentionS: e.ENDED_ROOM_RETENTION_S,
    sidecar: {
      heartbeatIntervalS: e.HEARTBEAT_INTERVAL_S,
      statusIntervalS: e.STATUS_INTERVAL_S,
      statusTimeoutS: e.STATUS_TIMEOUT_S,
    },
    abuse: {
      joinsPerMinute: e.JOIN_RATE_LIMIT_PER_MINUTE,
      createsPerMinute: e.CREATE_RATE_LIMIT_PER_MINUTE,
      commandsPerMinute: e.COMMAND_RATE_LIMIT_PER_MINUTE,
      messagePollsPerMinute: e.MESSAGE_POLL_RATE_LIMIT_PER_MINUTE,
      invitesPerMinute: e.INVITE_RATE_LIMIT_PER_MINUTE,
    },
    costBounds: {
      emptyRoomGraceS: e.EMPTY_ROOM_GRACE_S,
      maxLifetimeS: e.MAX_ROOM_LIFETIME_S,
      maxRunningServers: e.MAX_RUNNING_SERVERS,
      maxServersPerConfiguration: e.MAX_SERVERS_PER_CONFIGURATION,
      orphanGraceS: e.ORPHAN_GRACE_S,
    },
  };
}

function isHttpsUrl(value: string): boolean {
  return URL.canParse(value) && new URL(value).protocol === 'https:';
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function definedOnly(secrets: ConfigSecrets): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secrets).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

let current: PlatformConfig | undefined;
let secrets: ConfigSecrets = {};

/** The process's configuration, parsed on first use (a Lambda cold start, or the local cloud's first request). */
export function config(): PlatformConfig {
  current ??= parseConfig(process.env, secrets);
  return current;
}

/**
 * Secrets for the configuration parsed next, kept in this module's memory and never written
 * to `process.env`. Replaces those given before; `resetConfig` forgets them.
 */
export function provideConfigSecrets(given: ConfigSecrets): void {
  secrets = { ...given };
  current = undefined;
}

/**
 * Forget the parsed configuration and the secrets given in memory; the local cloud calls
 * this after it sets the environment, then hands over its keys again.
 */
export function resetConfig(): void {
  current = undefined;
  secrets = {};
}
