import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateSigningKeyPair } from '../core/auth/tokens';
import { createDocumentClient, createSqsClient } from '../core/infra/aws-clients';
import { provideConfigSecrets } from '../core/infra/config';
import { childLogger } from '../core/infra/logger';
import { queueDefinitions, queueUrlVariable, type QueueId } from '../core/infra/queues';
import { createTableInput, tableDefinition } from '../core/infra/table';
import { routes } from '../lambdas/http/routes';
import { configurePlatform, platform, resetPlatform, tableUpgradeDependencies } from '../lambdas/dependencies';
import { sweep } from '../lambdas/schedule/room-sweeper';
import { keepPools } from '../lambdas/schedule/pool-keeper';
import { upgradeTable } from '../core/upgrade/table-upgrade';
import { bundle } from '../containers/build';
import { configurationForFleet } from '../core/gameservers/fleet-fit';
import { LocalFleet } from './fleet';
import { endLeftoverRoomCgroups } from './room-cgroups';
import { startApiGateway, type LocalApiGateway } from './api-gateway';
import { loadLocalConfigFile, type LocalConfigFile } from './config-file';
import { putTemplate } from '../core/templates/put-template';
import { checkHealth, ComponentDownError, type HealthReport } from './health';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { httpHandlers } from './http-handlers';
import { queueConsumers } from './queue-consumers';
import { reconcileAtStart, type ReconcileResult } from './reconcile';
import { createQueues, startSqsEmulator, type SqsEmulator } from './sqs-emulator';
import { startSqsPoller, type SqsPoller } from './sqs-pollers';
import { startTableStream } from './table-stream';
import { startLogTail, type LogTail } from './log-tail';
import { stopRoomTaps, tapRooms } from '../lambdas/stream/room-taps';
import { LocalHostAgents } from './host-agents';
import { geoipLiteLocator } from './ip-locator';
import { localFleetPlan } from './fleet-plan';
import { corsPolicy } from '../lambdas/http/cors';
import { openApiJson, serviceIndex } from './service-index';
import { createLiveGateway, livePath, type LocalLiveGateway } from './live-gateway';
import { handler as liveSocket } from '../lambdas/live/socket';
import { serverReplacement } from '../lambdas/replacement';
import { allowedHostsOf } from './host-check';

export interface LocalCloudOptions {
  /** HTTP port of the API; 0 picks a free one. */
  readonly port?: number;
  readonly configPath?: string;
  /** Persist DynamoDB Local's data in this directory instead of memory. */
  readonly persistDir?: string;
  /** Where game server and sidecar output goes (default: this process's output). */
  readonly gameOutput?: 'inherit' | 'ignore';
  /** Sidecar health timings, shortened by tests. */
  readonly sidecar?: { heartbeatIntervalS?: number; statusIntervalS?: number; statusTimeoutS?: number };
  readonly heartbeatTimeoutS?: number;
  readonly sweepIntervalMs?: number;
  /** Per-account limits; tests and benchmarks that play many rooms from one account raise them. */
  readonly rateLimits?: {
    joinsPerMinute?: number;
    createsPerMinute?: number;
    commandsPerMinute?: number;
    messagePollsPerMinute?: number;
  };
  /** Pause before DynamoDB Local is restarted after it died (tests lengthen it to observe the outage). */
  readonly dynamodbRestartDelayMs?: number;
  /** How long a create holds the caller for `inited` before 202 (`CREATE_WAIT_S`). @default 25 */
  readonly createWaitS?: number;
  /** Local hosts (local-1 … local-N) when the file declares no regions (`--hosts N`). @default 1 */
  readonly hosts?: number;
  /** How often local hosts send heartbeats. @default 2000 */
  readonly hostHeartbeatIntervalMs?: number;
  /** Origins browsers may call the API from (`--cors-origins`); replaces the file's `cors`. @default the file's, or none */
  readonly corsOrigins?: readonly string[];
}

export interface LocalCloud {
  readonly apiUrl: string;
  /** The live-session WebSocket, `ws://…/v1/live` (add `?token=`). */
  readonly liveUrl: string;
  readonly tableName: string;
  /** `pid` is the JVM serving now: it changes when a dead one is replaced. */
  readonly dynamodb: { readonly endpoint: string; readonly pid: number; readonly restarts: number };
  readonly sqs: { readonly endpoint: string; readonly queueUrls: Readonly<Record<string, string>> };
  readonly config: LocalConfigFile;
  readonly fleet: LocalFleet;
  /** The local hosts' heartbeat agents: `pause(hostId)` makes a host go silent. */
  readonly hosts: LocalHostAgents;
  /** Every local host's id, by region. */
  readonly hostIds: Readonly<Record<string, readonly string[]>>;
  /** What the start found of an earlier run: rooms failed, leftover processes stopped. */
  readonly reconciled: ReconcileResult;
  /** The origins the API answers CORS requests from; empty: no CORS. */
  readonly corsOrigins: readonly string[];
  health(): Promise<HealthReport>;
  stop(): Promise<void>;
  /** SIGKILLs every process the cloud started, now. Synchronous: the last resort of a process 'exit' handler. */
  killNow(): void;
}

const localTableName = 'roomkeeper-local';
const defaultSweepIntervalMs = 5_000;
const log = childLogger('local-cloud');
export const localIssuer = 'roomkeeper-local';
/** The audience dev tokens carry and the local API demands, as a deployed API demands its own. */
export const localAudience = 'roomkeeper-api';
const localQueuePrefix = 'roomkeeper-local';

/**
 * Creates the table and turns its TTL on. Both are safe to repeat: under load the SDK retries a
 * request whose answer timed out although DynamoDB Local applied it, and the retry then finds
 * the table it made itself (ResourceInUseException) or the TTL already on.
 */
async function createTable(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  try {
    await db.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  try {
    await db.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && /already enabled/i.test(error.message))) throw error;
  }
}

/** The local table, created as the stack's, or a persisted one brought up to its indexes and stream. */
export async function ensureTable(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  let existing;
  try {
    existing = await db.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    // Only a table that is not there is made; any other failure is the caller's to see.
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await createTable(db, tableName);
    return;
  }
  await addMissingIndexes(db, tableName, existing.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName) ?? []);
  if (!existing.Table?.StreamSpecification?.StreamEnabled) await addStream(db, tableName);
}

/**
 * A table kept by `--persist` from a version without the stream gets it: the taps read it
 * (local/table-stream.ts). Its earlier writes are not in it, and need not be: a tap is news
 * only to the sockets open now.
 */
async function addStream(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  log.warn('adding the stream to the persisted table', { viewType: tableDefinition.streamViewType });
  await db.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: createTableInput(tableName).StreamSpecification,
    }),
  );
}

/**
 * A table kept by `--persist` from a version without some index gets it (one per UpdateTable,
 * as DynamoDB allows). Rooms written before it lack its keys: they are not found through it.
 */
async function addMissingIndexes(db: DynamoDBDocumentClient, tableName: string, present: unknown[]): Promise<void> {
  const wanted = createTableInput(tableName);
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    if (present.includes(index.IndexName)) continue;
    log.warn('adding a missing index to the persisted table', { index: index.IndexName });
    await db.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: wanted.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [
          { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
        ],
      }),
    );
  }
}

function optionalNumbers(values: Record<string, number | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter((entry): entry is [string, number] => entry[1] !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );
}

/**
 * Each part of `/health` gets this long; they run in parallel, so the answer comes within it.
 * 1.5 s, not 1: on a loaded 2-core machine the in-process SQS check has taken over 1 s.
 */
const healthCheckTimeoutMs = 1_500;

/**
 * A table kept by `--persist` from an earlier release: its older items are brought up to date
 * before any request, not a sweep later (core/upgrade/table-upgrade.ts). Once done, one read.
 */
async function upgradeKeptTable(): Promise<void> {
  await upgradeTable(tableUpgradeDependencies(platform()), { maxPages: Number.POSITIVE_INFINITY });
}

/**
 * Starts the whole platform on this machine: DynamoDB Local, the SQS emulator, the queues
 * and table from the same definitions as the CDK stack, pollers that feed the queue
 * handlers, and an API Gateway-style server over the same HTTP handlers.
 */
export async function startLocalCloud(options: LocalCloudOptions = {}): Promise<LocalCloud> {
  const fileConfig = loadLocalConfigFile(options.configPath);
  const fleetPlan = localFleetPlan(fileConfig, options.hosts ?? 1);
  const started: Stoppable[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
  };
  const logTail = startLogTail(started);
  try {
    const { dynamo, sqsEmulator, keyPair, platformKeyPair } = await startEmulators(options, started);
    const region = 'us-east-1';
    const db = createDocumentClient({ region, dynamodbEndpoint: dynamo.endpoint });
    const sqs: SQSClient = createSqsClient({ region, sqsEndpoint: sqsEmulator.endpoint });
    started.push({ stop: async () => (db.destroy(), sqs.destroy()) });
    await ensureTable(db, localTableName);
    const queueUrls = await createQueues(sqs, localQueuePrefix);
    configureEnvironment({ options, region, dynamo, sqsEmulator, queueUrls, fleetPlan, keyPair, platformKeyPair });
    started.push({ stop: async () => resetPlatform() });
    started.push(await startTaps(dynamo.endpoint, region));
    const { localFleet, live } = configureLocalPlatform(options, logTail);
    started.push({ stop: () => localFleet.stopAll() });
    // Before any request: rooms and processes left by an earlier run (`--persist`, or a crash),
    // and what their games started that outlived them in their cgroups.
    await endLeftoverRoomCgroups();
    const reconciled = await reconcileAtStart({
      live: platform().liveRooms,
      rooms: platform().rooms,
      now: platform().now,
    });
    await upgradeKeptTable();
    // Build once up front so the first room does not pay for it (the sample game's script runs its bundle).
    await Promise.all([bundle('controller'), bundle('sample-game')]);
    await installFileConfig(fileConfig, fleetPlan);
    const hostAgents = new LocalHostAgents({
      hostIds: fleetPlan.hosts.map((h) => h.hostId),
      runningOn: (hostId) => localFleet.runningOn(hostId),
      groupsOn: (hostId) => localFleet.groupsOn(hostId),
      heartbeat: (hostId, beat) => platform().fleet.heartbeat(hostId, beat, platform().now()),
      intervalMs: options.hostHeartbeatIntervalMs,
    });
    await hostAgents.start();
    started.push({ stop: () => hostAgents.stop() });
    // A replaced JVM serves the same endpoint. In memory it starts empty: the table and the
    // file's games come back, the rooms do not, so their game servers are stopped.
    dynamo.onRestart(async () => {
      await ensureTable(db, localTableName);
      if (!options.persistDir) await localFleet.stopAll('storage-lost');
      await installFileConfig(fileConfig, fleetPlan);
      await hostAgents.beatAll();
    });
    const pollers = startPollers(sqs, queueUrls);
    started.push({ stop: async () => void (await Promise.all(pollers.map((p) => p.stop()))) });
    started.push(startSweeps(options.sweepIntervalMs ?? defaultSweepIntervalMs));
    const health = () => localHealth({ dynamo, db, sqs, queueUrls, pollers });
    const corsOrigins = options.corsOrigins ?? fileConfig.cors?.allowOrigins ?? [];
    const gateway = await startGateway(options.port ?? 3000, corsOrigins, health, keyPair.jwks, live);
    // The sockets stop first (stops run in reverse): each one's $disconnect still reaches the table.
    started.push({ stop: () => gateway.close() }, { stop: () => live.close() });

    return {
      apiUrl: gateway.url,
      liveUrl: `${gateway.url.replace(/^http/, 'ws')}${livePath}`,
      tableName: localTableName,
      dynamodb: dynamo,
      sqs: { endpoint: sqsEmulator.endpoint, queueUrls },
      config: fileConfig,
      fleet: localFleet,
      hosts: hostAgents,
      hostIds: Object.fromEntries(
        fleetPlan.regions.map((r) => [r.name, fleetPlan.hosts.filter((h) => h.region === r.name).map((h) => h.hostId)]),
      ),
      reconciled,
      corsOrigins,
      health,
      stop: stopAll,
      killNow: () => {
        dynamo.killNow();
        localFleet.killNow();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

interface Stoppable {
  stop(): Promise<void>;
}

type SigningKeyPair = Awaited<ReturnType<typeof generateSigningKeyPair>>;

/**
 * DynamoDB Local, the SQS emulator, and two key pairs, as deployed: the dev tokens' stands in
 * for the identity provider's (published in AUTH_JWKS), the platform's signs game-server and
 * room tokens and is in no key set the player and admin API trusts. Each emulator is pushed
 * to `started` as soon as it is up, so a failure of the others still stops it.
 */
async function startEmulators(
  options: LocalCloudOptions,
  started: Stoppable[],
): Promise<{
  dynamo: DynamoDbLocal;
  sqsEmulator: SqsEmulator;
  keyPair: SigningKeyPair;
  platformKeyPair: SigningKeyPair;
}> {
  const [dynamo, sqsEmulator, keyPair, platformKeyPair] = await Promise.all([
    startDynamoDbLocal({
      dbPath: options.persistDir,
      supervise: { restartDelayMs: options.dynamodbRestartDelayMs },
    }).then((d: DynamoDbLocal) => (started.push(d), d)),
    startSqsEmulator().then((s: SqsEmulator) => (started.push(s), s)),
    generateSigningKeyPair(`local-dev-${Date.now()}`),
    generateSigningKeyPair(`local-platform-${Date.now()}`),
    // esbuild's long-lived service process inherits this process's environment (its API
    // takes no `env`): the signing keys are never in it, they reach the configuration in
    // memory below. Builds are memoised, so later calls reuse these.
    bundle('controller'),
    bundle('sample-game'),
  ]);
  return { dynamo, sqsEmulator, keyPair, platformKeyPair };
}

/**
 * The handlers read their settings from the environment, exactly as in Lambda; the secrets
 * excepted: every child inherits this environment unless given its own, and a local game
 * (same user) can read any same-user /proc/<pid>/environ. The keys are handed to the
 * configuration in memory, after the reset that would forget them.
 */
function configureEnvironment(setup: {
  options: LocalCloudOptions;
  region: string;
  dynamo: DynamoDbLocal;
  sqsEmulator: SqsEmulator;
  queueUrls: Record<QueueId, string>;
  fleetPlan: ReturnType<typeof localFleetPlan>;
  keyPair: SigningKeyPair;
  platformKeyPair: SigningKeyPair;
}): void {
  const { options } = setup;
  Object.assign(process.env, {
    AWS_REGION: setup.region,
    TABLE_NAME: localTableName,
    DYNAMODB_ENDPOINT: setup.dynamo.endpoint,
    SQS_ENDPOINT: setup.sqsEmulator.endpoint,
    AUTH_ISSUER: localIssuer,
    AUTH_AUDIENCE: localAudience,
    AUTH_JWKS: JSON.stringify(setup.keyPair.jwks),
    ROOM_REGION: setup.fleetPlan.defaultRegion,
    SPAWNER: 'local',
    REPLY_QUEUE_PREFIX: `${localQueuePrefix}-reply-`,
    ...optionalNumbers({
      HEARTBEAT_TIMEOUT_S: options.heartbeatTimeoutS,
      CREATE_WAIT_S: options.createWaitS,
      SWEEP_INTERVAL_S: (options.sweepIntervalMs ?? defaultSweepIntervalMs) / 1000,
      JOIN_RATE_LIMIT_PER_MINUTE: options.rateLimits?.joinsPerMinute,
      CREATE_RATE_LIMIT_PER_MINUTE: options.rateLimits?.createsPerMinute,
      COMMAND_RATE_LIMIT_PER_MINUTE: options.rateLimits?.commandsPerMinute,
      MESSAGE_POLL_RATE_LIMIT_PER_MINUTE: options.rateLimits?.messagePollsPerMinute,
      HEARTBEAT_INTERVAL_S: options.sidecar?.heartbeatIntervalS,
      STATUS_INTERVAL_S: options.sidecar?.statusIntervalS,
      STATUS_TIMEOUT_S: options.sidecar?.statusTimeoutS,
    }),
  });
  for (const id of Object.keys(queueDefinitions) as QueueId[]) process.env[queueUrlVariable(id)] = setup.queueUrls[id];
  resetPlatform();
  provideConfigSecrets({
    DEV_SIGNING_JWK: JSON.stringify(setup.keyPair.privateJwk),
    TOKEN_SIGNING_JWK: JSON.stringify(setup.platformKeyPair.privateJwk),
  });
}

/** The adapters that differ from AWS: game servers are local processes, not ECS tasks; sockets are the live gateway's. */
function configureLocalPlatform(
  options: LocalCloudOptions,
  logTail: LogTail,
): { localFleet: LocalFleet; live: LocalLiveGateway } {
  let fleet: LocalFleet | undefined;
  const live = createLiveGateway({ handler: liveSocket });
  configurePlatform({
    // What `GET /v1/dev/logs` serves.
    logTail,
    // Frames reach the sockets of the local live gateway, as PostToConnection reaches API Gateway's.
    connectionSender: live.sender,
    spawner: (p) => {
      fleet ??= new LocalFleet({
        sidecar: p.sidecarSettings(),
        sidecarKeys: (roomId) => p.sidecarKeys(roomId),
        controllerEntry: () => bundle('controller'),
        output: options.gameOutput ?? 'inherit',
        // The sidecar's own kill grace is 3 s; give it time to report and clean up first.
        stopGraceMs: 4_000,
        // Evidence no heartbeat timeout needs to wait for: the room stops taking joins at once.
        // A `migrateHost` room gets a replacement server instead (lambdas/replacement.ts).
        onLost: (roomId, detail) => {
          serverReplacement(platform())(roomId, { reason: 'sidecar-lost', epoch: detail.epoch ?? 1 }).then(
            (death) =>
              death.kind !== 'unchanged' &&
              log.warn(`room ${death.kind}: its sidecar died without a word`, { roomId, ...detail }),
            (error: Error) => log.error('could not fail or replace the room of a lost sidecar', { roomId, error }),
          );
        },
      });
      return fleet;
    },
    // The fleet's processes listen on this machine: known before any of them starts.
    locateServer: () => () => Promise.resolve(fleet?.host),
    ipLocator: geoipLiteLocator(),
  });
  return { localFleet: platform().spawner as LocalFleet, live };
}

/**
 * The file's games (and their warm pools), then its templates (a dedicated template must name
 * a configuration that exists), then the fleet's regions and hosts.
 */
async function installFileConfig(
  fileConfig: LocalConfigFile,
  fleetPlan: ReturnType<typeof localFleetPlan>,
): Promise<void> {
  const p = platform();
  for (const game of fileConfig.games) {
    const configuration = configurationForFleet(
      game.configuration,
      { gameId: game.gameId, version: game.version, updatedAt: p.now().toISOString() },
      p.config.fleet,
    );
    await p.gameConfigurations.put(configuration);
    await p.pool.register(configuration.gameId, configuration.version, configuration.standby ?? 0);
  }
  for (const { name, template } of fileConfig.templates) {
    await putTemplate(name, template, {
      templates: p.templates,
      configurations: p.gameConfigurations,
      now: p.now(),
    });
  }
  await p.fleet.install(fleetPlan.regions, fleetPlan.hosts, p.now());
}

function startPollers(sqs: SQSClient, queueUrls: Record<QueueId, string>): SqsPoller[] {
  return Object.entries(queueConsumers).map(([id, handler]) => {
    const definition = queueDefinitions[id as QueueId];
    return startSqsPoller({
      sqs,
      queueUrl: queueUrls[id as QueueId],
      functionName: `${id}Consumer`,
      handler,
      batchSize: definition.batchSize,
      // Lambda scales consumers with the number of message groups; a few loops stand in for that.
      concurrency: 4,
    });
  });
}

/**
 * The table stream's consumer, as deployed (lambdas/stream/room-taps.ts): this process holds
 * the taps a subscription's interval holds back. Every write of the platform wakes the reader.
 */
async function startTaps(endpoint: string, region: string): Promise<Stoppable> {
  const stream = await startTableStream({ endpoint, region, tableName: localTableName, handler: tapRooms });
  configurePlatform({ afterTableWrite: () => stream.nudge() });
  return {
    stop: async () => {
      await stream.stop();
      stopRoomTaps();
    },
  };
}

/**
 * EventBridge runs the sweeper every minute in AWS; locally it runs more often. One at a
 * time: sweeps stuck behind a stalled DynamoDB must not pile up and all land at once.
 */
function startSweeps(intervalMs: number): Stoppable {
  let sweeping: Promise<void> | undefined;
  const sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = sweep()
      .catch(() => undefined)
      .then(() => keepPools())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (sweeping = undefined));
  }, intervalMs);
  return {
    stop: async () => {
      clearInterval(sweeper);
      // A sweep under way finishes before the stores it uses close (at most 2 s: one stuck
      // behind a stalled DynamoDB is left to fail on its own).
      await Promise.race([sweeping, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}

/** `/health`: DynamoDB Local (and its restarts), every queue, every poller. */
function localHealth(parts: {
  dynamo: DynamoDbLocal;
  db: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrls: Record<QueueId, string>;
  pollers: readonly SqsPoller[];
}): Promise<HealthReport> {
  const { dynamo, db, sqs, queueUrls, pollers } = parts;
  return checkHealth(
    {
      dynamodb: async (abortSignal) => {
        if (dynamo.status === 'restoring')
          throw new ComponentDownError('restoring the table and games after a restart');
        if (dynamo.status !== 'up') throw new ComponentDownError(`restarting (${dynamo.lastExit ?? 'stopped'})`);
        await db.send(new DescribeTableCommand({ TableName: localTableName }), { abortSignal });
      },
      sqs: (abortSignal) =>
        Promise.all(
          Object.values(queueUrls).map((QueueUrl) =>
            sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }), { abortSignal }),
          ),
        ),
      pollers: async () => {
        if (!pollers.every((p) => p.running)) throw new ComponentDownError('stopped');
      },
    },
    healthCheckTimeoutMs,
  );
}

/** The API over the same HTTP handlers as Lambda, plus the local cloud's own GET routes. */
function startGateway(
  port: number,
  corsOrigins: readonly string[],
  health: () => Promise<HealthReport>,
  jwks: SigningKeyPair['jwks'],
  live: LocalLiveGateway,
): Promise<LocalApiGateway> {
  return startApiGateway({
    routes,
    handlers: httpHandlers,
    port,
    cors: corsPolicy(corsOrigins),
    allowedHosts: allowedHostsOf(process.env),
    upgrade: live.upgrade,
    ownRoutes: [
      { method: 'GET', path: '/', handle: async () => ({ status: 200, body: serviceIndex() }) },
      { method: 'GET', path: '/openapi.json', handle: async () => ({ status: 200, body: openApiJson() }) },
      {
        method: 'GET',
        path: '/health',
        handle: async () => {
          const { healthy, components, problems } = await health();
          return {
            status: healthy ? 200 : 503,
            body: { status: healthy ? 'ok' : 'degraded', components, ...(healthy ? {} : { problems }) },
          };
        },
      },
      { method: 'GET', path: '/.well-known/jwks.json', handle: async () => ({ status: 200, body: jwks }) },
    ],
  });
}
