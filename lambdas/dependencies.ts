import { randomUUID } from 'node:crypto';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ECSClient } from '@aws-sdk/client-ecs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import type { JWK } from 'jose';
import { BanStore } from '../core/abuse/ban-store';
import { AbuseGuard } from '../core/abuse/guard';
import { RateLimitStore } from '../core/abuse/rate-limit-store';
import {
  createPlatformTokenVerifier,
  createTokenSigner,
  createTokenVerifier,
  type PlatformTokenVerifier,
  type TokenSigner,
  type TokenVerifier,
} from '../core/auth/tokens';
import { sqsCommandDelivery, type SidecarDelivery } from '../core/commands/delivery';
import { ProtocolComponentStore, type ProtocolComponents } from '../core/versions/protocol-store';
import { MessageStore, type RoomMessages } from '../core/commands/message-store';
import { CommandStore, type Commands } from '../core/commands/store';
import { GameConfigurationStore, type GameConfigurations } from '../core/gameservers/configuration-store';
import { EcsSpawner, ecsTaskDefaults } from '../core/gameservers/ecs-spawner';
import { ThrottledSpawner } from '../core/gameservers/throttled-spawner';
import { TemplateFollowingSpawner } from '../core/gameservers/template-revisions';
import { envelopeKeyFromSecret, type EnvelopeKey } from '../core/gameservers/sidecar-envelope';
import { SpawnFailedError } from '../core/gameservers/errors';
import { EcsTaskAddresses } from '../core/gameservers/ecs-task-address';
import { ecsTaskDefinitions } from '../core/gameservers/ecs-task-definitions';
import type { GameServerConfiguration } from '../core/gameservers/configuration';
import { locatePausesMs, patientLocator, type ServerLocator } from '../core/gameservers/server-address';
import { stsSidecarCredentials } from '../core/gameservers/sidecar-credentials';
import type { SidecarPlatformSettings } from '../core/gameservers/sidecar-launch';
import type { Spawner } from '../core/gameservers/spawner';
import { ServerSlotStore } from '../core/gameservers/server-slot-store';
import type { RoomCosts } from '../core/rooms/create';
import { afterTableWrites, createDocumentClient, createSqsClient } from '../core/infra/aws-clients';
import { systemClock, type Clock } from '../core/infra/clock';
import { config, ConfigInvalidError, resetConfig, type PlatformConfig } from '../core/infra/config';
import { FillingRoomStore } from '../core/matchmaking/store';
import type { SidecarCredentials } from '../core/protocol/controller-messages';
import { sidecarKeys, type SidecarKeys } from '../core/protocol/sidecar-channel';
import { deriveIdempotencyKey } from '../core/idempotency/cipher';
import { IdempotencyStore, type IdempotencyRecords } from '../core/idempotency/store';
import { LiveRoomStore, type LiveRoomIndex, type LiveRoomPages } from '../core/rooms/live-room-store';
import { RoomListStore, type RoomListing } from '../core/rooms/list-store';
import { dynamoRoomStore } from '../core/rooms/dynamo-room-store';
import type { RoomStore } from '../core/rooms/room-store';
import { SweeperStateStore } from '../core/rooms/sweeper-state-store';
import { HistoryStore, type RoomHistory } from '../core/rooms/history-store';
import { TemplateStore } from '../core/templates/template-store';
import { FleetStore } from '../core/placement/fleet-store';
import type { IpLocator } from '../core/placement/geo';
import { Placement } from '../core/placement/placement';
import { PoolStore } from '../core/pool/pool-store';
import { WarmPool } from '../core/pool/warm-pool';
import { assignThroughSidecar, sqsAssignAnswers } from '../core/pool/assign';
import { queueUrlResolver } from '../core/infra/queue-urls';
import { QueueAdmin } from '../core/infra/queue-admin';
import type { LogLines } from '../core/infra/log-lines';
import { cloudWatchQueueAges } from '../core/infra/queue-ages';
import { gameServerTokenClaims } from '../core/auth/token-model';
import { PlatformCache } from '../core/infra/platform-cache';
import { tableUpgradeName } from '../core/upgrade/table-upgrade';
import { UpgradeStore } from '../core/upgrade/upgrade-store';
import { DynamoLiveSubscriptions, type LiveConnections } from '../core/live/subscription-store';
import { DynamoInviteStore, type InviteStore } from '../core/invites/invite-store';
import type { TableUpgradeDependencies } from '../core/upgrade/table-upgrade';
import {
  apiGatewayConnectionSender,
  apiGatewayManagementClient,
  type ConnectionSender,
} from '../core/live/connection-sender';

/**
 * The composition root: every store and port a handler uses, built once per process from the
 * configuration (a Lambda cold start, or the local cloud's first request) and shared by all
 * handlers in it. Handlers take stores from here and never build one; only stores touch `db`.
 */
export interface Platform {
  readonly config: PlatformConfig;
  /** For stores only: no handler or use case sends a DynamoDB command itself. */
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  /** Time for every rule and every wait (core/infra/clock.ts). */
  readonly clock: Clock;
  /** This process's one bounded TTL cache: immutable or signed data, and reads of bounded staleness (core/infra/platform-cache.ts). */
  readonly cache: PlatformCache;
  /**
   * The one writer of rooms (core/rooms/room-store.ts): their state, placement, members,
   * reservations and registration keys (the session document), session PATCHes, ends and
   * warm hand-overs.
   */
  readonly rooms: RoomStore;
  readonly gameConfigurations: GameConfigurations;
  /** The matchmaking buckets' filling-room pointers. */
  readonly fillingRooms: FillingRoomStore;
  /** `GET /v1/rooms`: lookups over the listing index. */
  readonly roomListing: RoomListing;
  /** Session templates (admin API, local config file); sessions copy their constants at creation. */
  readonly templates: TemplateStore;
  /**
   * Bans and per-account rate limits: `assertJoinAllowed`, `assertCreateAllowed`, …, and
   * `checks`, for a join or create that runs them beside its own requests.
   */
  readonly abuse: AbuseGuard;
  /** `Idempotency-Key` records; answers encrypted under a key derived from the signing key. */
  readonly idempotency: IdempotencyRecords;
  /** What the room sweeper remembers between runs. */
  readonly sweeperState: SweeperStateStore;
  /** How far this release's one-time pass over older items got (core/upgrade/table-upgrade.ts): the sweeper runs it. */
  readonly tableUpgrade: UpgradeStore;
  /** Owners' commands to their rooms' game servers, and the games' answers (core/commands/). */
  readonly commands: Commands;
  /** Each room's log of game → owner messages (the last 100). */
  readonly roomMessages: RoomMessages;
  /** Seals a command (or a cost bound's `stop`) for a room's sidecar and puts it on its reply queue. */
  readonly deliverCommand: SidecarDelivery;
  /**
   * Every live room, through the sweeper's index (never a table scan): the sweeper, the local
   * cloud's reconciliation, and page by page the operators' listing (`GET /v1/admin/rooms`).
   */
  readonly liveRooms: LiveRoomIndex & LiveRoomPages;
  /** Rooms' spawn/kill history (core/rooms/history-store.ts): written by the table stream's consumer, read by the admin API. */
  readonly history: RoomHistory;
  /** The platform's queues and their dead-letter queues for operators: counts, ages, redrive (core/infra/queue-admin.ts). */
  readonly queueAdmin: QueueAdmin;
  readonly spawner: Spawner;
  /** Running-server caps and the per-room cost bounds (docs/cost-bounds.md). */
  readonly costs: RoomCosts;
  /** Regions and hosts: the admin API's store, read whole by placement. */
  readonly fleet: FleetStore;
  /** The warm pool's bookkeeping: standby servers and pooled configurations (core/pool/pool-store.ts). */
  readonly pool: PoolStore;
  /** The warm pool: standby servers taken by creates (a conditional take each), refilled by the pool keeper. */
  readonly warmPool: WarmPool;
  /** Chooses a new room's region and host and takes its server slot (core/placement/placement.ts). */
  readonly placement: Placement;
  /**
   * Finds where a public IP address is, for choosing the nearest region. The local cloud
   * reads an IP database; deployed, CloudFront's viewer headers say it instead.
   */
  readonly ipLocator?: IpLocator;
  /** Deployed on ECS: the client the sweeper measures ECS hosts' clusters with. */
  readonly ecs?: ECSClient;
  /**
   * The address players reach, for rooms whose spawner did not know it at spawn time
   * (deployed: the ECS task's public IPv4, found at `inited`).
   */
  readonly locateServer: ServerLocator;
  /**
   * What a configuration needs before rooms use it, at PUT: on ECS, a task definition revision
   * for its image (core/gameservers/ecs-task-definitions.ts). Elsewhere nothing.
   */
  readonly prepareConfiguration: (configuration: GameServerConfiguration) => Promise<GameServerConfiguration>;
  /** Settings every sidecar gets; fails if the controller queue is not configured. */
  sidecarSettings(): SidecarPlatformSettings;
  /** Signs tokens the platform itself issues (game server and joined-player tokens; core/auth/token-model.ts). */
  readonly signToken: TokenSigner;
  /** Verifies the identity provider's tokens: the player and admin API's bearer tokens. */
  readonly verifyToken: TokenVerifier;
  /** Verifies tokens the platform issued (a game server's `login_access_token`), for one platform audience. */
  readonly verifyPlatformToken: PlatformTokenVerifier;
  /**
   * The keys of one room's sidecar channel (core/protocol/sidecar-channel.ts), derived from
   * the platform's signing key: spawners hand K_room to the sidecar, the consumer checks
   * and seals with it. No extra secret to deploy.
   */
  sidecarKeys(roomId: string): Promise<SidecarKeys>;
  /** Deployed: AWS credentials scoped to one room's queues, for its sidecar. Absent locally. */
  readonly sidecarCredentials?: (roomId: string, epoch: number) => Promise<SidecarCredentials>;
  /** Live-session sockets and their subscriptions (core/live/subscription-store.ts). */
  readonly liveSubscriptions: LiveConnections;
  /** The invites each account received (core/invites/invite-store.ts); an invite's writes go with the room's. */
  readonly invites: InviteStore;
  /**
   * Sends frames to live-session sockets: deployed through the WebSocket API's connection
   * management endpoint (LIVE_ENDPOINT), in the local cloud through its own gateway's sockets.
   */
  readonly connectionSender: ConnectionSender;
  /**
   * Builds' component maps by set hash (core/versions/protocol-store.ts): kept at `inited` and
   * configuration PUT, read only to explain a PROTOCOL_MISMATCH.
   */
  readonly protocolComponents: ProtocolComponents;
  /** The local cloud's tail of the log lines it printed (`GET /v1/dev/logs`); absent deployed. */
  readonly logTail?: LogLines;
  /** `clock.now`, bound: the `now` use cases take. */
  readonly now: () => Date;
  readonly newId: () => string;
}

/** The adapters that differ between the deployed stack, the local cloud and tests. */
export interface PlatformOptions {
  /** Game servers as something other than ECS tasks (the local cloud's processes, a test's recorder). */
  readonly spawner?: (
    platform: Omit<Platform, 'spawner' | 'locateServer' | 'prepareConfiguration' | 'warmPool'>,
  ) => Spawner;
  /** Where players reach a game server, when not an ECS task's public IP (the local fleet's host). */
  readonly locateServer?: () => ServerLocator;
  /** Time other than the system's (a test moving expiries). */
  readonly clock?: Clock;
  /** An IP → location database (the local cloud's geoip-lite). */
  readonly ipLocator?: IpLocator;
  /** Sockets other than the WebSocket API's (the local cloud's live gateway). */
  readonly connectionSender?: ConnectionSender;
  /** Told after each table write is answered (the local cloud's stream reader reads at once). */
  readonly afterTableWrite?: () => void;
  /** The local cloud's ring buffer of its log lines (local/log-tail.ts). */
  readonly logTail?: LogLines;
}

let current: Platform | undefined;
let options: PlatformOptions = {};

function sidecarSettings(settings: PlatformConfig): SidecarPlatformSettings {
  const queueUrl = settings.queueUrls.controllerRequests;
  if (!queueUrl) throw new ConfigInvalidError(['QUEUE_URL_CONTROLLER_REQUESTS'], 'needed to start game servers');
  return {
    region: settings.region,
    controllerRequestQueueUrl: queueUrl,
    replyQueuePrefix: settings.replyQueuePrefix,
    sqsEndpoint: settings.sqsEndpoint,
    discoveryServices: {},
    ...settings.sidecar,
  };
}

/**
 * The platform's own signing key: inline in the local cloud, from Secrets Manager when
 * deployed (fetched on first use, once per cold start).
 */
interface LoadedTokens {
  sign: TokenSigner;
  verify: PlatformTokenVerifier;
  /** The sidecar channel keys of a room, derived from the private scalar `d`. */
  sidecarKeys: (roomId: string) => SidecarKeys;
  idempotencyKey: Buffer;
}

function platformTokens(settings: PlatformConfig): {
  sign: TokenSigner;
  verify: PlatformTokenVerifier;
  sidecarKeys: (roomId: string) => Promise<SidecarKeys>;
  idempotencyKey: () => Promise<Buffer>;
} {
  let loaded: Promise<LoadedTokens> | undefined;
  const load = async (): Promise<LoadedTokens> => {
    let text = settings.tokenSigningJwk;
    if (!text && settings.tokenSigningJwkSecretArn) {
      const client = new SecretsManagerClient({ region: settings.region });
      text = (await client.send(new GetSecretValueCommand({ SecretId: settings.tokenSigningJwkSecretArn })))
        .SecretString;
      client.destroy();
    }
    if (!text)
      throw new ConfigInvalidError(
        ['TOKEN_SIGNING_JWK', 'TOKEN_SIGNING_JWK_SECRET_ARN'],
        'needed to issue platform tokens',
      );
    let jwk: JWK;
    try {
      jwk = JSON.parse(text) as JWK;
    } catch {
      throw new ConfigInvalidError(['TOKEN_SIGNING_JWK'], 'the signing key is not an Ed25519 private JWK (not JSON)');
    }
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string') {
      throw new ConfigInvalidError(['TOKEN_SIGNING_JWK'], 'the signing key is not an Ed25519 private JWK');
    }
    const { d: _private, ...publicJwk } = jwk;
    const platformSecret = Buffer.from(jwk.d, 'base64url');
    return {
      // The platform's own issuer, never the identity provider's: the player and admin API refuse these tokens.
      sign: createTokenSigner(jwk, settings.auth.platformIssuer),
      // Tokens the platform issued itself (game servers'), checked against the public half of its key.
      verify: createPlatformTokenVerifier({
        issuer: settings.auth.platformIssuer,
        jwks: JSON.stringify({ keys: [publicJwk] }),
      }),
      // Derived again for every message: three HKDFs, no I/O, and nothing per room to keep.
      sidecarKeys: (roomId) => sidecarKeys(platformSecret, roomId),
      idempotencyKey: deriveIdempotencyKey(platformSecret),
    };
  };
  const get = () => {
    loaded ??= load();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
  return {
    sign: async (claims) => (await get()).sign(claims),
    verify: async (token, audience) => (await get()).verify(token, audience),
    sidecarKeys: async (roomId) => (await get()).sidecarKeys(roomId),
    idempotencyKey: async () => (await get()).idempotencyKey,
  };
}

/**
 * The key spawns seal sidecar secrets under, read from Secrets Manager on the first spawn and
 * again once its cache bound has passed (a rotation). Functions that never spawn need no secret.
 */
export function envelopeKeyReader(settings: PlatformConfig, cache: PlatformCache): () => Promise<EnvelopeKey> {
  const arn = settings.sidecarEnvelopeKeySecretArn;
  if (!arn) {
    const missing = new ConfigInvalidError(['SIDECAR_ENVELOPE_KEY_SECRET_ARN'], 'needed to start game servers on ECS');
    return () => Promise.reject(missing);
  }
  let client: SecretsManagerClient | undefined;
  const load = async () => {
    client ??= new SecretsManagerClient({ region: settings.region });
    let text;
    try {
      text = (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
    } catch (error) {
      throw new SpawnFailedError('The sidecar envelope key could not be read.', { cause: error });
    }
    if (!text) throw new ConfigInvalidError(['SIDECAR_ENVELOPE_KEY_SECRET_ARN'], 'the secret holds no text');
    return envelopeKeyFromSecret(text);
  };
  return () => cache.read('sidecarEnvelopeKey', arn, load);
}

function ecsSpawner(
  settings: PlatformConfig,
  sidecar: () => SidecarPlatformSettings,
  secrets: Pick<Platform, 'sidecarKeys' | 'sidecarCredentials' | 'fleet' | 'cache' | 'gameConfigurations'>,
  clock: Clock,
): Spawner {
  const { cluster, taskDefinition } = settings.ecs;
  if (!cluster || !taskDefinition) {
    return {
      spawn: () =>
        Promise.reject(new ConfigInvalidError(['ECS_CLUSTER', 'ECS_TASK_DEFINITION'], 'needed to spawn on ECS')),
      stop: () => Promise.resolve(),
    };
  }
  const client = new ECSClient({ region: settings.region });
  const ecs = new EcsSpawner(client, {
    ...settings.ecs,
    cluster,
    taskDefinition,
    // Read when spawning only: the sweeper stops tasks without knowing the controller queue.
    get sidecar() {
      return sidecar();
    },
    sidecarKeys: secrets.sidecarKeys,
    sidecarCredentials: secrets.sidecarCredentials,
    envelopeKey: envelopeKeyReader(settings, secrets.cache),
    hostClusters: async () =>
      (await secrets.fleet.read()).hosts.flatMap((host) => (host.ecs ? [host.ecs.cluster] : [])),
  });
  // Configurations' revisions follow the deployed template (its controller image).
  const current = new TemplateFollowingSpawner(ecs, {
    template: taskDefinition,
    register: ecsTaskDefinitions(client, { baseTaskDefinition: taskDefinition, ...ecsTaskDefaults }),
    configurations: secrets.gameConfigurations,
    cache: secrets.cache,
  });
  // Creations beyond the account's RunTask rate wait with backoff instead of failing.
  return new ThrottledSpawner(current, { clock });
}

/**
 * Deployed: DescribeTasks → the task's ENI → DescribeNetworkInterfaces → its public IPv4, the
 * concurrent lookups of this process merged (core/gameservers/ecs-task-address.ts). The clients
 * make one attempt: a throttled call goes back to the queue for a few seconds rather than
 * being retried against the same bucket. Without a cluster (tests with their own spawner)
 * nothing is located: rooms become ready with the address their placement already has, or not at all.
 */
function ecsLocator(settings: PlatformConfig): ServerLocator {
  const { cluster } = settings.ecs;
  if (!cluster) return () => Promise.resolve(undefined);
  const addresses = new EcsTaskAddresses(
    new ECSClient({ region: settings.region, maxAttempts: 1 }),
    new EC2Client({ region: settings.region, maxAttempts: 1 }),
    cluster,
  );
  return patientLocator(addresses.locate, locatePausesMs, (ms) => new Promise((resolve) => setTimeout(resolve, ms)));
}

/** The local fleet runs binaries, and without a deployed task definition there is nothing to register. */
function configurationPreparer(settings: PlatformConfig): Platform['prepareConfiguration'] {
  const { taskDefinition } = settings.ecs;
  if (settings.spawner !== 'ecs' || !taskDefinition) return (configuration) => Promise.resolve(configuration);
  return ecsTaskDefinitions(new ECSClient({ region: settings.region }), {
    baseTaskDefinition: taskDefinition,
    gameContainer: ecsTaskDefaults.gameContainer,
    firstGamePort: ecsTaskDefaults.firstGamePort,
  });
}

export function platform(): Platform {
  current ??= buildPlatform(config(), options);
  return current;
}

function buildPlatform(settings: PlatformConfig, chosen: PlatformOptions): Platform {
  const clock = chosen.clock ?? systemClock;
  const sqs = createSqsClient(settings);
  const shared: SharedClients = {
    clock,
    tokens: platformTokens(settings),
    sqs,
    // Sidecars' queues are siblings of the controller request queue when its URL is configured.
    queueUrl: queueUrlResolver(sqs, settings.queueUrls.controllerRequests),
  };
  const base = basePlatform(settings, chosen, shared);
  const spawner = chosen.spawner
    ? chosen.spawner(base)
    : ecsSpawner(settings, () => sidecarSettings(settings), base, clock);
  return {
    ...base,
    ...(!chosen.spawner && settings.ecs.cluster ? { ecs: new ECSClient({ region: settings.region }) } : {}),
    spawner,
    warmPool: warmPoolOf(settings, base, spawner, shared),
    locateServer: chosen.locateServer ? chosen.locateServer() : ecsLocator(settings),
    prepareConfiguration: configurationPreparer(settings),
  };
}

/** What the parts of one platform share: its clock, keys, SQS client and queue URL resolver. */
interface SharedClients {
  readonly clock: Clock;
  readonly tokens: ReturnType<typeof platformTokens>;
  readonly sqs: SQSClient;
  readonly queueUrl: ReturnType<typeof queueUrlResolver>;
}

type BasePlatform = Omit<Platform, 'spawner' | 'locateServer' | 'prepareConfiguration' | 'warmPool'>;

/** The stores and services that need no spawner: everything but the game servers. */
function basePlatform(settings: PlatformConfig, chosen: PlatformOptions, shared: SharedClients): BasePlatform {
  const { clock, tokens, sqs } = shared;
  const db = createDocumentClient(settings);
  if (chosen.afterTableWrite) afterTableWrites(db, chosen.afterTableWrite);
  const table = settings.tableName;
  let verifyToken: TokenVerifier | undefined;
  const slots = new ServerSlotStore(db, table, (ms) => clock.sleep(ms));
  const deliverCommand = sqsCommandDelivery(sqs, settings.replyQueuePrefix, tokens.sidecarKeys, shared.queueUrl);
  const cache = new PlatformCache();
  const fleet = new FleetStore(db, table, cache);
  return {
    config: settings,
    db,
    sqs,
    clock,
    cache,
    rooms: dynamoRoomStore(db, table, {
      sleep: (ms) => clock.sleep(ms),
      endedRetentionS: settings.endedRoomRetentionS,
    }),
    gameConfigurations: new GameConfigurationStore(db, table, cache),
    templates: new TemplateStore(db, table),
    fillingRooms: new FillingRoomStore(db, table),
    protocolComponents: new ProtocolComponentStore(db, table),
    roomListing: new RoomListStore(db, table),
    abuse: new AbuseGuard({
      bans: new BanStore(db, table, (ms) => clock.sleep(ms)),
      rates: new RateLimitStore(db, table, cache),
      limits: settings.abuse,
      cache,
    }),
    idempotency: new IdempotencyStore(db, table, tokens.idempotencyKey),
    sweeperState: new SweeperStateStore(db, table),
    tableUpgrade: new UpgradeStore(db, table, tableUpgradeName),
    commands: new CommandStore(db, table),
    roomMessages: new MessageStore(db, table),
    deliverCommand: (roomId, command, epoch) => deliverCommand(roomId, command, epoch),
    liveRooms: new LiveRoomStore(db, table, (ms) => clock.sleep(ms)),
    history: new HistoryStore(db, table, (ms) => clock.sleep(ms)),
    queueAdmin: queueAdminOf(settings, sqs, clock),
    costs: { slots, defaults: settings.costBounds },
    fleet,
    pool: new PoolStore(db, table),
    placement: new Placement({ fleet, slots, now: () => clock.now(), deploymentRegion: settings.roomRegion }),
    ...(chosen.ipLocator ? { ipLocator: chosen.ipLocator } : {}),
    ...(chosen.logTail ? { logTail: chosen.logTail } : {}),
    sidecarSettings: () => sidecarSettings(settings),
    // Built on first use: queue consumers never verify a player's token and need no key set.
    verifyToken: (token) => (verifyToken ??= createTokenVerifier(settings.auth, cache))(token),
    signToken: tokens.sign,
    verifyPlatformToken: tokens.verify,
    sidecarKeys: tokens.sidecarKeys,
    ...(settings.sidecarRole
      ? {
          sidecarCredentials: stsSidecarCredentials(new STSClient({ region: settings.region }), {
            ...settings.sidecarRole,
            replyQueuePrefix: settings.replyQueuePrefix,
          }),
        }
      : {}),
    liveSubscriptions: new DynamoLiveSubscriptions(
      db,
      table,
      () => clock.now(),
      (ms) => clock.sleep(ms),
    ),
    connectionSender: chosen.connectionSender ?? liveEndpointSender(settings),
    invites: new DynamoInviteStore(db, table),
    now: () => clock.now(),
    newId: () => randomUUID(),
  };
}

/** What the table's one-time upgrade pass works with: the sweeper runs it deployed, the local cloud at start. */
export function tableUpgradeDependencies(p: Platform): TableUpgradeDependencies {
  return {
    store: p.tableUpgrade,
    bans: p.abuse,
    rooms: p.rooms,
    configurations: p.gameConfigurations,
    templates: p.templates,
    now: p.now,
  };
}

/** The queues for operators; deployed (no emulator endpoint) their ages come from CloudWatch. */
function queueAdminOf(settings: PlatformConfig, sqs: SQSClient, clock: Clock): QueueAdmin {
  return new QueueAdmin({
    sqs,
    queueUrls: settings.queueUrls,
    ...(settings.sqsEndpoint
      ? {}
      : {
          ages: cloudWatchQueueAges(new CloudWatchClient({ region: settings.region })),
        }),
    now: () => clock.now(),
  });
}

/**
 * Deployed: the WebSocket API's connection management endpoint, its client built on the first
 * send (only the socket handler, the taps consumer and the invite route send). Without LIVE_ENDPOINT every send
 * fails as a configuration error, never as a gone connection: nothing is forgotten for it.
 */
function liveEndpointSender(settings: PlatformConfig): ConnectionSender {
  let sender: ConnectionSender | undefined;
  return {
    send: (connectionId, frame) => {
      if (!settings.liveEndpoint)
        return Promise.reject(new ConfigInvalidError(['LIVE_ENDPOINT'], 'needed to send to live-session sockets'));
      sender ??= apiGatewayConnectionSender(apiGatewayManagementClient(settings.liveEndpoint, settings.region));
      return sender.send(connectionId, frame);
    },
  };
}

/** The warm pool; its `assign` reaches a standby server's sidecar through the sidecar's queues. */
function warmPoolOf(settings: PlatformConfig, base: BasePlatform, spawner: Spawner, shared: SharedClients): WarmPool {
  const { sqs, tokens, queueUrl } = shared;
  return new WarmPool({
    pool: base.pool,
    rooms: base.rooms,
    placement: base.placement,
    spawner,
    costs: base.costs,
    now: base.now,
    newRoomId: base.newId,
    mintServerToken: (configuration, roomId) =>
      base.signToken(gameServerTokenClaims(roomId, configuration.serverScopes)),
    assign: assignThroughSidecar({
      deliver: base.deliverCommand,
      answers: sqsAssignAnswers(sqs, settings.replyQueuePrefix, tokens.sidecarKeys, queueUrl),
      newId: base.newId,
    }),
    cache: base.cache,
  });
}

/**
 * Chooses the adapters that differ from the deployed stack, for the platform built next (the
 * one built so far is dropped). A key given as `undefined` restores the default; keys left
 * out keep their choice.
 *
 * @example
 * configurePlatform({ spawner: (p) => new LocalFleet({ sidecar: p.sidecarSettings(), … }) }); // the local cloud
 * configurePlatform({ clock: shiftedClock(() => offsetMs) }); // a test judging expiries later
 */
export function configurePlatform(chosen: PlatformOptions): void {
  options = { ...options, ...chosen };
  dropPlatform();
}

/**
 * The one reset: forgets the built platform (closing its clients), the parsed configuration
 * and every choice of `configurePlatform`, so the next `platform()` is built afresh from the
 * environment with the deployed defaults.
 */
export function resetPlatform(): void {
  dropPlatform();
  options = {};
  resetConfig();
}

function dropPlatform(): void {
  current?.db.destroy();
  current?.sqs.destroy();
  current = undefined;
}
