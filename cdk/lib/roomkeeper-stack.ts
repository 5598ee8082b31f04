import { CfnOutput, RemovalPolicy, Validations, type StackProps } from 'aws-cdk-lib';
import type { HttpApi, ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { defaultPlatformIssuer, identityProviderConflict } from '../../core/auth/token-model';
import { qualifiedQueueName, queueDefinitions, type QueueId } from '../../core/infra/queues';
import { tableDefinition } from '../../core/infra/table';
import type { RouteDefinition } from '../../lambdas/http/routes';
import type { CostBoundSettings } from './constructs/cost-bounds';
import { GameServerFleet } from './constructs/game-server-fleet';
import { LiveApi } from './constructs/live-api';
import { Operations } from './constructs/operations';
import type { PlatformResources } from './constructs/platform-resources';
import { PlatformSchedules } from './constructs/platform-schedules';
import { deployableRoutes, PlayerApi } from './constructs/player-api';
import { ProjectFunction, type AuthSettings } from './constructs/project-function';
import { ProjectQueue } from './constructs/project-queue';
import { QueueConsumers } from './constructs/queue-consumers';
import { StackOfParts } from './constructs/stack-part';
import { TokenSigningKey } from './constructs/token-signing-key';
import type { ScaleName, ScaleProfile } from './scale/profiles';
import { scaleSettings } from './scale/settings';

export interface RoomkeeperStackProps extends StackProps {
  /** Prefix of resource names in this deployment (`roomkeeper-prod`). */
  readonly namePrefix: string;
  /** Token issuer the API Gateway authorizer and the handlers trust. */
  readonly auth: AuthSettings & { readonly audience: string };
  /** @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Stage-wide default throttling. @default 500 requests/s, bursts of 1,000 */
  readonly throttle?: ThrottleSettings;
  /**
   * The route table. Only tests pass one; the deployed stack always uses
   * lambdas/http/routes.ts.
   * @default routes
   */
  readonly routes?: readonly RouteDefinition[];
  /**
   * Throttle of each route that starts game servers (its `needs` include `spawn`).
   * @default ECS's RunTask rate: 20 requests/s, bursts of 100 (core/gameservers/throttled-spawner.ts)
   */
  readonly spawnRouteThrottle?: ThrottleSettings;
  /** Image of the game server container of every task (registry/name:tag). */
  readonly gameImage: string;
  /** Ports per game server, from 7777 (mapped by the task, opened by the security group). @default 4 */
  readonly gamePorts?: number;
  /** ECS clusters of this account and region besides the fleet's that hosts may name (docs/placement.md). */
  readonly hostClusters?: readonly string[];
  /** Alarm notifications by email (confirmed by the recipient). @default none: subscribe to the topic yourself */
  readonly alarmEmail?: string;
  /** A monthly AWS Budgets cost budget in USD, notifying the alarm topic. @default none */
  readonly monthlyBudgetUsd?: number;
  /** Empty-room grace, lifetime, running-server caps (docs/cost-bounds.md). @default core/infra/config.ts */
  readonly costBounds?: CostBoundSettings;
  /** Egress game servers need beyond HTTPS (docs/ecs-fleet.md "Configurations and the fleet"). @default none */
  readonly gameServerEgress?: readonly ec2.Port[];
  /**
   * Origins a browser game may call the API from (`*` for any): API Gateway answers their
   * preflights and adds the CORS headers (lambdas/http/cors.ts). @default none: no CORS
   */
  readonly corsOrigins?: readonly string[];
  /**
   * The most invocations the controller-requests consumer runs at once (its event source
   * mapping's cap, 2–1,000; it reserves no concurrency). @default core/infra/queues.ts
   */
  readonly consumerMaxConcurrency?: number;
  /**
   * The scale profile (docs/scale.md): server caps, heartbeat cadence, consumer concurrency,
   * subnet size and throttles sized for 1k, 10k or 100k concurrent players; the props above
   * override its values. Choose it at the first deploy: another profile's subnet size
   * replaces the game server subnets. @default '1k'
   */
  readonly scale?: ScaleName;
}

/** Name prefix of the reply queues controller sidecars create: `roomkeeper-prod-reply-`. */
export function replyQueuePrefix(namePrefix: string): string {
  return qualifiedQueueName(namePrefix, 'reply-');
}

/**
 * The whole platform in one stack: the table and queues built from their definitions in
 * core/infra, the game server fleet, the platform's signing key, and its parts: the player API,
 * the queue consumers, the schedules; operations watch them all.
 */
export class RoomkeeperStack extends StackOfParts {
  readonly namePrefix: string;
  readonly table: dynamodb.TableV2;
  readonly queues: Readonly<Record<QueueId, ProjectQueue>>;
  readonly api: HttpApi;
  readonly routeFunctions: ReadonlyMap<string, ProjectFunction>;
  readonly consumers: Readonly<Record<QueueId, ProjectFunction>>;
  readonly fleet: GameServerFleet;
  readonly tokenSigningKey: secretsmanager.Secret;
  readonly signingKey: TokenSigningKey;
  readonly operations: Operations;
  readonly sweeper: ProjectFunction;
  readonly sweepSchedule: events.Rule;
  /** Tops up the warm pools (lambdas/schedule/pool-keeper.ts): it starts standby servers. */
  readonly poolKeeper: ProjectFunction;
  /** Live sessions: the WebSocket API and the table stream's consumer that sends taps. */
  readonly live: LiveApi;
  /** The scale profile the stack is built with (docs/scale.md). */
  readonly scale: ScaleProfile;

  constructor(scope: Construct, id: string, props: RoomkeeperStackProps) {
    super(scope, id, props);
    // The handlers would refuse to start with such settings; fail at synthesis instead.
    const conflict = identityProviderConflict(props.auth, defaultPlatformIssuer);
    if (conflict) throw new Error(`Invalid auth settings: ${conflict}.`);
    this.namePrefix = props.namePrefix;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const scale = scaleSettings(props);
    this.scale = scale.profile;
    this.table = newTable(this, scale.tableWarmWritesPerS);
    this.queues = newQueues(this, props.namePrefix);
    const replyPrefix = replyQueuePrefix(props.namePrefix);
    this.fleet = new GameServerFleet(this, 'GameServers', {
      namePrefix: props.namePrefix,
      controllerRequests: this.queues.controllerRequests,
      replyQueuePrefix: replyPrefix,
      gameImage: props.gameImage,
      gamePorts: props.gamePorts ?? 4,
      ...(props.hostClusters ? { hostClusters: props.hostClusters } : {}),
      extraEgress: props.gameServerEgress,
      subnetCidrMask: scale.subnetCidrMask,
      logRetention,
    });
    this.tokenSigningKey = newSigningSecret(this, props.namePrefix);
    this.signingKey = new TokenSigningKey(this, 'TokenSigningKey', { secret: this.tokenSigningKey, logRetention });
    const platform: PlatformResources = {
      table: this.table,
      queues: this.queues,
      fleet: this.fleet,
      replyQueuePrefix: replyPrefix,
      tokenSigningKey: this.tokenSigningKey,
      auth: props.auth,
      costBounds: scale.costBounds,
      logRetention,
    };
    const playerApi = new PlayerApi(this, 'PlayerApi', {
      platform,
      namePrefix: props.namePrefix,
      audience: props.auth.audience,
      throttle: scale.throttle,
      ...(props.routes ? { routes: props.routes } : {}),
      spawnRouteThrottle: scale.spawnRouteThrottle,
      ...(props.corsOrigins ? { corsOrigins: props.corsOrigins } : {}),
    });
    this.api = playerApi.api;
    this.routeFunctions = playerApi.routeFunctions;
    this.consumers = new QueueConsumers(this, 'QueueConsumers', platform, {
      maxConcurrency: { controllerRequests: scale.consumerMaxConcurrency },
    }).consumers;
    // Id `Default`: CDK leaves it out of the unique ids that name the schedules' Lambda
    // permissions too (a part's id is left out of logical IDs only), so they keep their names.
    const schedules = new PlatformSchedules(this, 'Default', platform);
    this.sweeper = schedules.sweeper;
    this.sweepSchedule = schedules.sweepSchedule;
    this.poolKeeper = schedules.poolKeeper;
    // Its frames (connects, subscribes, pings) grow with the players as the API's requests do.
    this.live = new LiveApi(this, 'Live', { platform, namePrefix: props.namePrefix, throttle: scale.throttle });
    // The console's config.json tells the browser where the live socket is.
    this.routeFunctions.get('consoleFile')?.function.addEnvironment('LIVE_URL', this.live.stage.url);
    // Routes that send to live sockets (an invite's frame) post through this API's stage.
    for (const route of deployableRoutes(props.routes)) {
      this.live.bindLiveNeeds(this.routeFunctions.get(route.id)!, route.needs ?? []);
    }

    // Fargate's start times and the fleet's ports (docs/ecs-fleet.md), and the profile's heartbeat cadence.
    for (const fn of this.node.findAll().filter((c): c is ProjectFunction => c instanceof ProjectFunction)) {
      fn.bindFleetLimits(this.fleet);
      for (const [name, value] of Object.entries(scale.functionEnvironment)) fn.function.addEnvironment(name, value);
    }
    this.addOutputs(playerApi);
    // A function that signs tokens is created only once the key is in the secret (first deploy).
    for (const fn of Operations.functionsOf(this)) {
      if (fn.readsSigningKey) fn.function.node.addDependency(this.signingKey.resource);
    }
    // Last: it watches every function created above (docs/operations.md).
    this.operations = new Operations(this, 'Operations', {
      namePrefix: props.namePrefix,
      api: this.api,
      table: this.table,
      queues: Object.values(this.queues),
      cluster: this.fleet.cluster,
      functions: Operations.functionsOf(this),
      live: this.live,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
      ...(props.monthlyBudgetUsd !== undefined ? { monthlyBudgetUsd: props.monthlyBudgetUsd } : {}),
    });
  }

  private addOutputs(playerApi: PlayerApi): void {
    new CfnOutput(this, 'ApiUrl', { value: playerApi.stage.url });
    new CfnOutput(this, 'LiveUrl', {
      value: this.live.stage.url,
      description: 'The WebSocket URL players subscribe to sessions on (wss://…; connect with ?token=…)',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'GameServerCluster', { value: this.fleet.cluster.clusterName });
    new CfnOutput(this, 'GameServerTaskDefinition', { value: this.fleet.taskDefinition.taskDefinitionArn });
    new CfnOutput(this, 'TokenSigningJwkSecretArn', {
      value: this.tokenSigningKey.secretArn,
      description:
        'The Ed25519 private JWK that signs platform tokens (generated at deploy; rotation: docs/operations.md)',
    });
    new CfnOutput(this, 'SidecarEnvelopeKeySecretArn', {
      value: this.fleet.envelopeKey.secretArn,
      description: "The key game server tasks' sidecar secrets are sealed under (rotation: docs/operations.md)",
    });
    new CfnOutput(this, 'TokenSigningPublicJwks', {
      value: this.signingKey.publicJwks,
      description: 'Public half of the platform signing key, for verifiers of platform tokens',
    });
    for (const [queueId, queue] of Object.entries(this.queues)) {
      new CfnOutput(this, `QueueUrl-${queueId}`, { value: queue.queue.queueUrl });
    }
  }
}

/** The one table, from its definition in core/infra/table.ts; kept when the stack goes. */
function newTable(scope: Construct, warmWritesPerS?: number): dynamodb.TableV2 {
  return new dynamodb.TableV2(scope, 'Table', {
    // What the table serves from its first minute, for a launch at the profile's size (docs/scale.md).
    ...(warmWritesPerS !== undefined ? { warmThroughput: { writeUnitsPerSecond: warmWritesPerS } } : {}),
    partitionKey: { name: tableDefinition.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: tableDefinition.sortKey, type: dynamodb.AttributeType.STRING },
    globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType[index.projection],
      ...(index.nonKeyAttributes ? { nonKeyAttributes: [...index.nonKeyAttributes] } : {}),
    })),
    timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    // Room changes become taps (cdk/lib/constructs/live-api.ts).
    dynamoStream: dynamodb.StreamViewType[tableDefinition.streamViewType],
    billing: dynamodb.Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** One queue (and its dead-letter queue) per definition in core/infra/queues.ts. */
function newQueues(scope: Construct, namePrefix: string): Record<QueueId, ProjectQueue> {
  const queues = {} as Record<QueueId, ProjectQueue>;
  for (const queueId of Object.keys(queueDefinitions) as QueueId[]) {
    queues[queueId] = new ProjectQueue(scope, `Queue-${queueId}`, {
      definition: queueDefinitions[queueId],
      namePrefix,
    });
  }
  return queues;
}

/**
 * The platform's own signing key (game server and joined-player tokens). Created with a
 * random placeholder (Secrets Manager needs a value) that the TokenSigningKey custom resource
 * replaces with an Ed25519 private JWK at deploy, unless it already holds a key (an operator's
 * is never overwritten). Rotation: docs/operations.md.
 */
function newSigningSecret(scope: Construct, namePrefix: string): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'TokenSigningJwk', {
    description: `${namePrefix}: Ed25519 private JWK that signs platform-issued tokens`,
    generateSecretString: { passwordLength: 32, excludePunctuation: true },
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'An Ed25519 signing key cannot be rotated by a Lambda alone: its public half must be published to token ' +
      'verifiers before use, and the old one kept until its tokens expire; operators rotate it by hand.',
  });
  return secret;
}
