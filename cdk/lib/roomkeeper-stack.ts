import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { defaultPlatformIssuer, identityProviderConflict } from '../../core/auth/token-model';
import { runTaskRate } from '../../core/gameservers/throttled-spawner';
import type { FunctionNeed } from '../../core/infra/function-needs';
import { defaultConsumerTimeoutS, qualifiedQueueName, queueDefinitions, type QueueId } from '../../core/infra/queues';
import { tableDefinition } from '../../core/infra/table';
import { corsPolicy } from '../../lambdas/http/cors';
import { routes, type RouteDefinition, type RouteId } from '../../lambdas/http/routes';
import { bindCostBounds, grantOrphanSweeps, type CostBoundSettings } from './constructs/cost-bounds';
import { GameServerFleet } from './constructs/game-server-fleet';
import { ProjectFunction, type AuthSettings, type TableAccess } from './constructs/project-function';
import { ProjectQueue } from './constructs/project-queue';
import { Operations } from './constructs/operations';
import { TokenSigningKey } from './constructs/token-signing-key';

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
}

/** Name prefix of the reply queues controller sidecars create: `roomkeeper-prod-reply-`. */
export function replyQueuePrefix(namePrefix: string): string {
  return qualifiedQueueName(namePrefix, 'reply-');
}

/** The Lambda function the room sweeper schedule runs every minute. */
export const sweeperEntry = 'lambdas/schedule/room-sweeper.ts';
/** The Lambda function that tops up the warm pools every minute. */
export const poolKeeperEntry = 'lambdas/schedule/pool-keeper.ts';

/** The only paths that may skip the JWT authorizer: a liveness probe, nothing with player data. */
export const publicPaths: ReadonlySet<string> = new Set(['/health']);

/** Local cloud helpers (dev tokens…) live here; nothing under it may ever be deployed. */
export const devPathPrefix = '/v1/dev/';

/** Routes that exist in AWS: everything but the local cloud's `localOnly` helpers. */
export function deployableRoutes(table: readonly RouteDefinition[] = routes): RouteDefinition[] {
  return table.filter((route) => !route.localOnly);
}

/**
 * Table access per route where it differs from the default (GET reads, every other method
 * reads and writes). Keep it least privilege: a route that only reads says so here.
 */
const routeTableAccess: Partial<Record<RouteId, TableAccess>> = { getRoom: 'read' };

export function tableAccessFor(route: RouteDefinition): TableAccess {
  return routeTableAccess[route.id as RouteId] ?? (route.method === 'GET' ? 'read' : 'readWrite');
}

/** API Gateway gives up on an integration after 30 s: a route's function must stop before. */
const maxHttpTimeoutS = 29;

/** `$context` fields of one access log line. No header, token or body is logged. */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
};

/**
 * The whole platform in one stack: the table and queues built from their definitions in
 * core/infra, and one HTTP API route with its own Lambda function per entry of
 * lambdas/http/routes.ts that is not local-only.
 */
export class RoomkeeperStack extends Stack {
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

  constructor(scope: Construct, id: string, props: RoomkeeperStackProps) {
    super(scope, id, props);
    // The handlers would refuse to start with such settings; fail at synthesis instead.
    const conflict = identityProviderConflict(props.auth, defaultPlatformIssuer);
    if (conflict) throw new Error(`Invalid auth settings: ${conflict}.`);
    this.namePrefix = props.namePrefix;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;

    this.table = new dynamodb.TableV2(this, 'Table', {
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
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const queues = {} as Record<QueueId, ProjectQueue>;
    for (const queueId of Object.keys(queueDefinitions) as QueueId[]) {
      queues[queueId] = new ProjectQueue(this, `Queue-${queueId}`, {
        definition: queueDefinitions[queueId],
        namePrefix: props.namePrefix,
      });
    }
    this.queues = queues;
    const replyPrefix = replyQueuePrefix(props.namePrefix);

    this.fleet = new GameServerFleet(this, 'GameServers', {
      namePrefix: props.namePrefix,
      controllerRequests: queues.controllerRequests,
      replyQueuePrefix: replyPrefix,
      gameImage: props.gameImage,
      gamePorts: props.gamePorts ?? 4,
      ...(props.hostClusters ? { hostClusters: props.hostClusters } : {}),
      extraEgress: props.gameServerEgress,
      logRetention,
    });

    // The platform's own signing key (game server and joined-player tokens). Created with a
    // random placeholder (Secrets Manager needs a value) that the TokenSigningKey custom
    // resource replaces with an Ed25519 private JWK at deploy, unless it already holds a key
    // (an operator's is never overwritten). Rotation: docs/operations.md.
    this.tokenSigningKey = new secretsmanager.Secret(this, 'TokenSigningJwk', {
      description: `${props.namePrefix}: Ed25519 private JWK that signs platform-issued tokens`,
      generateSecretString: { passwordLength: 32, excludePunctuation: true },
    });
    this.signingKey = new TokenSigningKey(this, 'TokenSigningKey', { secret: this.tokenSigningKey, logRetention });
    Validations.of(this.tokenSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'An Ed25519 signing key cannot be rotated by a Lambda alone: its public half must be published to token ' +
        'verifiers before use, and the old one kept until its tokens expire; operators rotate it by hand.',
    });
    // Each route and queue declares its needs beside its entry (core/infra/function-needs.ts).
    const bindNeeds = (fn: ProjectFunction, needs: readonly FunctionNeed[] = []) => {
      if (needs.includes('spawn')) {
        fn.bindFleet(this.fleet, 'run')
          .bindQueue(queues.controllerRequests, 'url')
          .bindReplyQueues(replyPrefix, 'name')
          .bindRoomRegion(Aws.REGION)
          .bindSidecarCredentials(this.fleet);
      }
      if (needs.includes('stopServers') && !needs.includes('spawn')) fn.bindFleet(this.fleet, 'stop');
      if (needs.includes('sidecarCredentials') && !needs.includes('spawn')) fn.bindSidecarCredentials(this.fleet);
      if (needs.includes('signTokens')) fn.bindTokenSigningKey(this.tokenSigningKey);
      if (needs.includes('sendCommands')) fn.bindReplyQueues(replyPrefix, 'send');
      if (needs.includes('takeStandby')) fn.bindReplyQueues(replyPrefix, 'assign');
    };

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: logRetention });
    const cors = corsPolicy(props.corsOrigins ?? []);
    this.api = new HttpApi(this, 'HttpApi', {
      apiName: props.namePrefix,
      description: 'Roomkeeper player API',
      createDefaultStage: false,
      // API Gateway answers preflights itself (no OPTIONS route, so no authorizer runs) and
      // adds the headers to every answer to an allowed origin, as the local gateway does.
      ...(cors
        ? {
            corsPreflight: {
              allowOrigins: [...cors.allowOrigins],
              allowMethods: cors.allowMethods.map((method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod]),
              allowHeaders: [...cors.allowHeaders],
              exposeHeaders: [...cors.exposeHeaders],
              maxAge: Duration.seconds(cors.maxAgeS),
            },
          }
        : {}),
      // Every route is behind the JWT authorizer unless it opts out below.
      defaultAuthorizer: new HttpJwtAuthorizer('JwtAuthorizer', props.auth.issuer, {
        jwtAudience: [props.auth.audience],
      }),
    });
    const stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });

    // A route that starts game servers asks ECS's RunTask no faster than the account allows
    // on its own; both together may reach twice that, which the spawner absorbs by waiting
    // (ThrottledSpawner) for as long as the caller is held.
    const spawnThrottle = props.spawnRouteThrottle ?? {
      rateLimit: runTaskRate.ratePerS,
      burstLimit: runTaskRate.burst,
    };
    // CloudFormation's own casing: CfnStage passes RouteSettings through untouched (it is JSON).
    const routeSettings: Record<string, { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number }> = {};

    const routeFunctions = new Map<string, ProjectFunction>();
    for (const route of deployableRoutes(props.routes)) {
      if (route.path.startsWith(devPathPrefix)) {
        throw new Error(`Route ${route.id} (${route.path}) is a local-only dev route but is not marked localOnly.`);
      }
      const isPublic = route.auth === 'public';
      if (isPublic && !publicPaths.has(route.path)) {
        throw new Error(
          `Route ${route.id} (${route.method} ${route.path}) is public, but only ${[...publicPaths].join(', ')} may skip the authorizer.`,
        );
      }
      if (route.timeoutS !== undefined && route.timeoutS > maxHttpTimeoutS) {
        throw new Error(
          `Route ${route.id}: timeoutS ${route.timeoutS} exceeds API Gateway's limit (${maxHttpTimeoutS} s).`,
        );
      }
      const fn = new ProjectFunction(this, `Route-${route.id}`, {
        entry: route.entry,
        description: `${route.method} ${route.path}`,
        ...(route.timeoutS !== undefined ? { timeout: Duration.seconds(route.timeoutS) } : {}),
        logRetention,
      })
        .bindTable(this.table, tableAccessFor(route))
        .bindAuth(props.auth);
      bindNeeds(fn, route.needs);
      const apiRoutes = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${route.id}Integration`, fn.function),
        ...(isPublic ? { authorizer: new HttpNoneAuthorizer() } : {}),
        // API Gateway rejects a token without the scope before the handler (which checks again) runs.
        ...(route.scope ? { authorizationScopes: [route.scope] } : {}),
      });
      if (isPublic) {
        for (const apiRoute of apiRoutes) {
          Validations.of(apiRoute).acknowledge({
            id: 'AwsSolutions-APIG4',
            reason: `${route.path} is a liveness probe for load balancers and uptime checks: it must answer without a token and returns no player data.`,
          });
        }
      }
      if (route.needs?.includes('spawn')) {
        routeSettings[`${route.method} ${route.path}`] = {
          ThrottlingRateLimit: spawnThrottle.rateLimit,
          ThrottlingBurstLimit: spawnThrottle.burstLimit,
        };
        // Route settings name existing routes only.
        stage.node.addDependency(...apiRoutes);
      }
      routeFunctions.set(route.id, fn);
    }
    this.routeFunctions = routeFunctions;
    if (Object.keys(routeSettings).length > 0) (stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
    // A configuration's own image runs on ECS: its PUT registers a task definition revision.
    routeFunctions.get('putGameConfiguration')?.bindTaskDefinitions(this.fleet);

    // One consumer per queue (the `consumer` of its definition), fed by an event source
    // mapping; it replies to the per-task reply queues the sidecars own.
    const consumers = {} as Record<QueueId, ProjectFunction>;
    for (const [queueId, queue] of Object.entries(queues) as [QueueId, ProjectQueue][]) {
      consumers[queueId] = new ProjectFunction(this, `Consumer-${queueId}`, {
        entry: queue.definition.consumer,
        description: `Consumes ${queue.queue.node.path}`,
        timeout: Duration.seconds(queue.definition.consumerTimeoutS ?? defaultConsumerTimeoutS),
        ...(queue.definition.reservedConcurrency !== undefined
          ? { reservedConcurrentExecutions: queue.definition.reservedConcurrency }
          : {}),
        logRetention,
      })
        .bindTable(this.table, 'readWrite')
        .bindQueue(queue, 'consume')
        .bindReplyQueues(replyPrefix)
        .bindAuth(props.auth);
      bindNeeds(consumers[queueId], queue.definition.needs);
    }
    this.consumers = consumers;
    // `inited` makes a room ready only with the address players reach: the task's public IPv4.
    consumers.controllerRequests.bindServerLookup(this.fleet);

    // Fails rooms whose server stopped reporting or never came up, and stops their tasks.
    // It finds live rooms through the sweeper index (gsi3), never a Scan. Overlapping or skipped runs are harmless
    // (every change is a conditional write; reads judge timeouts lazily anyway): no retries,
    // the next minute's run is the retry.
    const sweepInterval = Duration.minutes(1);
    this.sweeper = new ProjectFunction(this, 'RoomSweeper', {
      entry: sweeperEntry,
      description: 'Fails overdue rooms and stops their game server tasks (every minute)',
      timeout: Duration.seconds(50),
      logRetention,
    })
      .bindTable(this.table, 'readWrite')
      .bindFleet(this.fleet, 'stop')
      // Heartbeats travel this queue: a backlog there means silence is the platform's, not a
      // room's (core/rooms/heartbeat-evidence.ts). The spawner also needs its URL to be built.
      .bindQueue(queues.controllerRequests, 'observe')
      .bindReplyQueues(replyPrefix, 'name')
      .bindAuth(props.auth);
    // Cost bounds: it also stops tasks and deletes reply queues whose room is not live.
    grantOrphanSweeps(this.sweeper, this.fleet, replyPrefix);
    for (const fn of [this.sweeper, ...routeFunctions.values(), ...Object.values(consumers)]) {
      bindCostBounds(fn, props.costBounds);
    }
    // The sweeper tells a late run (a stalled platform) by its schedule.
    this.sweeper.function.addEnvironment('SWEEP_INTERVAL_S', String(sweepInterval.toSeconds()));
    this.sweeper.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.sweepSchedule = new events.Rule(this, 'RoomSweeperSchedule', {
      description: 'Runs the room sweeper',
      schedule: events.Schedule.rate(sweepInterval),
      targets: [
        new targets.LambdaFunction(this.sweeper.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });

    // The warm pools (docs/placement.md): starting standby servers is spawning, so it is a
    // function of its own with the spawners' grants; the sweeper keeps stopping only.
    this.poolKeeper = new ProjectFunction(this, 'PoolKeeper', {
      entry: poolKeeperEntry,
      description: 'Tops up the warm pools of standby game servers (every minute)',
      timeout: Duration.seconds(50),
      logRetention,
    })
      .bindTable(this.table, 'readWrite')
      .bindAuth(props.auth);
    bindNeeds(this.poolKeeper, ['spawn', 'signTokens']);
    bindCostBounds(this.poolKeeper, props.costBounds);
    this.poolKeeper.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    new events.Rule(this, 'PoolKeeperSchedule', {
      description: 'Tops up the warm pools',
      schedule: events.Schedule.rate(sweepInterval),
      targets: [
        new targets.LambdaFunction(this.poolKeeper.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
      ],
    });

    // Fargate's start times and the fleet's ports, for every function (docs/ecs-fleet.md).
    for (const fn of this.node.findAll().filter((c): c is ProjectFunction => c instanceof ProjectFunction)) {
      fn.bindFleetLimits(this.fleet);
    }

    new CfnOutput(this, 'ApiUrl', { value: stage.url });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'GameServerCluster', { value: this.fleet.cluster.clusterName });
    new CfnOutput(this, 'GameServerTaskDefinition', { value: this.fleet.taskDefinition.taskDefinitionArn });
    new CfnOutput(this, 'TokenSigningJwkSecretArn', {
      value: this.tokenSigningKey.secretArn,
      description:
        'The Ed25519 private JWK that signs platform tokens (generated at deploy; rotation: docs/operations.md)',
    });
    new CfnOutput(this, 'TokenSigningPublicJwks', {
      value: this.signingKey.publicJwks,
      description: 'Public half of the platform signing key, for verifiers of platform tokens',
    });
    for (const [queueId, queue] of Object.entries(queues)) {
      new CfnOutput(this, `QueueUrl-${queueId}`, { value: queue.queue.queueUrl });
    }

    // A function that signs tokens is created only once the key is in the secret (first deploy).
    for (const fn of Operations.functionsOf(this)) {
      if (fn.readsSigningKey) fn.function.node.addDependency(this.signingKey.resource);
    }
    // Last: it watches every function created above (docs/operations.md).
    this.operations = new Operations(this, 'Operations', {
      namePrefix: props.namePrefix,
      api: this.api,
      table: this.table,
      queues: Object.values(queues),
      cluster: this.fleet.cluster,
      functions: Operations.functionsOf(this),
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
      ...(props.monthlyBudgetUsd !== undefined ? { monthlyBudgetUsd: props.monthlyBudgetUsd } : {}),
    });
  }
}
