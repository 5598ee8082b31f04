import { Aws, Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import {
  LogGroupLogDestination,
  WebSocketApi,
  WebSocketStage,
  type ThrottleSettings,
  type WebSocketRoute,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionNeed } from '../../../core/infra/function-needs';
import { keys } from '../../../core/infra/keys';
import { tableDefinition } from '../../../core/infra/table';
import { bindNeeds, type PlatformResources } from './platform-resources';
import { ProjectFunction } from './project-function';
import { StackPart } from './stack-part';

/** One handler for every route of the WebSocket API (API Gateway WebSocket events, payload format 1.0). */
export const liveSocketEntry = 'lambdas/live/socket.ts';
/** The table stream's consumer: turns a room's changes into taps. */
export const roomTapsEntry = 'lambdas/stream/room-taps.ts';

/**
 * What each live function needs besides the table and the token settings
 * (core/infra/function-needs.ts; test/cdk/function-needs.test.ts derives it from the code).
 */
export const liveFunctionNeeds: Readonly<Record<'socket' | 'taps', readonly FunctionNeed[]>> = {
  socket: ['postToSockets'],
  taps: ['postToSockets'],
};

/** The routes besides `$connect`, `$disconnect` and `$default`, selected by a frame's `action`. */
export const liveActionRoutes = ['subscribe', 'unsubscribe', 'ping'] as const;
export const liveRouteSelection = '$request.body.action';
/** The stage's name: the last segment of `LIVE_ENDPOINT` and of the `LiveUrl` output. */
export const liveStageName = 'live';
/** Where both live functions find the API Gateway Management API of this stage. */
export const liveEndpointVariable = 'LIVE_ENDPOINT';

/**
 * Lambda's largest synchronous invocation payload, which a stream batch must fit in (Invoke, API
 * reference), and DynamoDB's largest item (a stream record's NEW_IMAGE is at most that).
 */
const lambdaPayloadBytes = 6 * 1024 * 1024;
const maxItemBytes = 400 * 1024;

/** The table stream's event source mapping (docs/live.md "Deployed"). */
export const roomTapStream = {
  /**
   * Ten 400 KB room items are 4 MB: a third of the 6 MB payload is left for each record's keys,
   * metadata and DynamoDB JSON's type wrappers, so even a batch of the largest rooms is delivered.
   */
  batchSize: Math.floor((lambdaPayloadBytes * (2 / 3)) / maxItemBytes),
  /**
   * Batches taken from one shard at once. Lambda keeps the records of one item (one room) in
   * order across them, so ordering per room holds; what it buys is that a room whose taps wait
   * out a subscriber's minTapIntervalMs, or a slow fanout to 1,000 sockets, no longer holds up
   * the other rooms of its shard. The price is up to 10 executions per shard while the table writes.
   */
  parallelizationFactor: 10,
  /**
   * A failing batch is split in halves until the record that fails is alone; that record is
   * tried again at most this often, then sent to the on-failure queue: it blocks every later
   * record of its shard lane while it is retried. A subscriber that misses a tap catches up with
   * the next one or on resubscribing with `since`.
   */
  retryAttempts: 2,
  /** A tap older than this is no longer news: skip it rather than hold the shard behind it. */
  maxRecordAge: Duration.minutes(5),
  /** The consumer may wait out a subscription's minTapIntervalMs (capped) before it sends. */
  timeout: Duration.seconds(60),
} as const;

/**
 * `$context` fields of one access log line. The token travels in the `$connect` query string:
 * no query string, header or body is logged.
 */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  connectionId: '$context.connectionId',
  eventType: '$context.eventType',
  routeKey: '$context.routeKey',
  status: '$context.status',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
};

export interface LiveApiProps {
  readonly platform: PlatformResources;
  /** Name of the WebSocket API (`roomkeeper-prod-live`). */
  readonly namePrefix: string;
  /** Stage-wide throttle of frames (every route). @default 500 frames/s, bursts of 1,000 */
  readonly throttle?: ThrottleSettings;
}

/**
 * Live sessions, deployed: the WebSocket API players subscribe to sessions on (every route to
 * one function, lambdas/live/socket.ts), and the consumer of the table's stream that sends them
 * taps (lambdas/stream/room-taps.ts). Both post to sockets through this stage's management API.
 */
export class LiveApi extends StackPart {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly socket: ProjectFunction;
  readonly taps: ProjectFunction;
  /** Room records the stream consumer gave up on (after its retries). */
  readonly tapFailures: sqs.Queue;

  constructor(scope: Construct, id: string, props: LiveApiProps) {
    super(scope, id);
    const { platform } = props;
    this.socket = new ProjectFunction(this, 'LiveSocket', {
      entry: liveSocketEntry,
      description: 'Live sessions: WebSocket connect, subscribe, ping, disconnect',
      logRetention: platform.logRetention,
    })
      .bindTable(platform.table, 'readWrite')
      .bindAuth(platform.auth);
    bindNeeds(this.socket, liveFunctionNeeds.socket, platform);
    this.api = this.newWebSocketApi(props.namePrefix);
    this.stage = this.newStage(platform, props.throttle);
    this.taps = new ProjectFunction(this, 'RoomTaps', {
      entry: roomTapsEntry,
      description: "Live sessions: sends taps for the table stream's room changes",
      timeout: roomTapStream.timeout,
      logRetention: platform.logRetention,
    })
      // It ends the subscriptions of removed members and forgets gone connections.
      .bindTable(platform.table, 'readWrite')
      .bindAuth(platform.auth);
    bindNeeds(this.taps, liveFunctionNeeds.taps, platform);
    this.tapFailures = this.newTapFailureQueue(props.namePrefix);
    this.taps.function.addEventSource(newRoomStreamSource(platform, this.tapFailures));
    this.bindLiveNeeds(this.socket, liveFunctionNeeds.socket);
    this.bindLiveNeeds(this.taps, liveFunctionNeeds.taps);
  }

  /**
   * What the stack binds for a function's `postToSockets` need (core/infra/function-needs.ts)
   * once this API exists: the live functions' own, and the HTTP routes' that declare it.
   */
  bindLiveNeeds(fn: ProjectFunction, needs: readonly FunctionNeed[]): void {
    if (needs.includes('postToSockets')) this.mayPostToConnections(fn);
  }

  private newWebSocketApi(namePrefix: string): WebSocketApi {
    const integration = (name: string) => new WebSocketLambdaIntegration(`${name}Integration`, this.socket.function);
    const api = new WebSocketApi(this, 'WebSocketApi', {
      apiName: `${namePrefix}-live`,
      description: 'Roomkeeper live sessions: taps when a session changes',
      routeSelectionExpression: liveRouteSelection,
      connectRouteOptions: { integration: integration('Connect') },
      disconnectRouteOptions: { integration: integration('Disconnect') },
      defaultRouteOptions: { integration: integration('Default') },
    });
    const routes: WebSocketRoute[] = [];
    for (const action of liveActionRoutes) {
      routes.push(api.addRoute(action, { integration: integration(`${action[0]!.toUpperCase()}${action.slice(1)}`) }));
    }
    // API Gateway runs an authorizer only on `$connect`; the handler verifies the token itself
    // there (401 without a valid one), and every later frame arrives on that connection.
    for (const route of [...routes, ...['$connect', '$disconnect', '$default'].map((key) => routeOf(api, key))]) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "lambdas/live/socket.ts verifies the player's token on $connect (query string `token`) and answers 401 " +
          'without a valid one; every other route is a frame on a connection that passed it.',
      });
    }
    return api;
  }

  private newStage(platform: PlatformResources, throttle: ThrottleSettings | undefined): WebSocketStage {
    const accessLogs = new logs.LogGroup(this, 'LiveAccessLogs', { retention: platform.logRetention });
    // API Gateway writes a WebSocket stage's logs with the account's CloudWatch role (HTTP APIs
    // need none): without one, the stage fails to deploy.
    const logsRole = this.newApiGatewayLogsRole();
    const stage = new WebSocketStage(this, 'LiveStage', {
      webSocketApi: this.api,
      stageName: liveStageName,
      autoDeploy: true,
      throttle: throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: apigateway.AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    stage.node.addDependency(logsRole);
    return stage;
  }

  /**
   * The account and region's API Gateway CloudWatch role (one per account and region: this sets
   * it, and keeps it when the stack goes, as other APIs of the account may log through it).
   */
  private newApiGatewayLogsRole(): apigateway.CfnAccount {
    const role = new iam.Role(this, 'ApiGatewayLogsRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: "API Gateway's CloudWatch Logs role of this account and region (WebSocket stage logs)",
    });
    // What the AWS managed AmazonAPIGatewayPushToCloudWatchLogs allows, inline (no managed policies here).
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [
          'logs:CreateLogGroup',
          'logs:CreateLogStream',
          'logs:DescribeLogGroups',
          'logs:DescribeLogStreams',
          'logs:PutLogEvents',
          'logs:GetLogEvents',
          'logs:FilterLogEvents',
        ],
        resources: [`arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:*`],
      }),
    );
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:*]',
      reason:
        "The account's API Gateway logging role serves every REST and WebSocket API of the account and region, " +
        'whose log groups API Gateway creates and names itself; the grant is logs actions in this account and region only.',
    });
    const account = new apigateway.CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: role.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    return account;
  }

  /** The queue the stream's event source mapping sends the records it gave up on to. */
  private newTapFailureQueue(namePrefix: string): sqs.Queue {
    const queue = new sqs.Queue(this, 'TapFailures', {
      queueName: `${namePrefix}-live-tap-failures`,
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead letter destination of the table stream consumer: it holds the ' +
        'descriptions of stream batches Lambda gave up on, for an operator; nothing consumes it.',
    });
    return queue;
  }

  /**
   * PostToConnection (and GetConnection, DeleteConnection) on this API's stage only, and the
   * stage's management endpoint in `LIVE_ENDPOINT`.
   */
  private mayPostToConnections(fn: ProjectFunction): void {
    const connections = `arn:${Aws.PARTITION}:execute-api:${Aws.REGION}:${Aws.ACCOUNT_ID}:${this.api.apiId}/${liveStageName}/*/@connections/*`;
    iam.Grant.addToPrincipal({
      grantee: fn.role,
      actions: ['execute-api:ManageConnections'],
      resourceArns: [connections],
    });
    const apiLogicalId = Stack.of(this).getLogicalId(this.api.node.defaultChild as CfnElement);
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiLogicalId}>/${liveStageName}/*/@connections/*]`,
      reason:
        'Connections are created by players at run time; the grant is ManageConnections on the connections of ' +
        "this deployment's live WebSocket API stage only.",
    });
    fn.function.addEnvironment(liveEndpointVariable, this.stage.callbackUrl);
  }
}

/** The route of `routeKey` CDK created for the API's `$connect`, `$disconnect` or `$default` options. */
function routeOf(api: WebSocketApi, routeKey: string): Construct {
  const route = api.node.children.find((child) => (child as Partial<WebSocketRoute>).routeKey === routeKey);
  if (!route) throw new Error(`The live WebSocket API has no ${routeKey} route.`);
  return route;
}

/** The table's stream, filtered to room items, as the consumer's event source. */
function newRoomStreamSource(platform: PlatformResources, onFailure: sqs.IQueue): DynamoEventSource {
  return new DynamoEventSource(platform.table, {
    // Taps are about what changes from now on; a reconnecting subscriber catches up with `since`.
    startingPosition: lambda.StartingPosition.LATEST,
    batchSize: roomTapStream.batchSize,
    parallelizationFactor: roomTapStream.parallelizationFactor,
    bisectBatchOnError: true,
    retryAttempts: roomTapStream.retryAttempts,
    maxRecordAge: roomTapStream.maxRecordAge,
    onFailure: new SqsDlq(onFailure),
    // Only room documents make taps: connections, subscriptions and the rest of the table never
    // invoke the function (Lambda filters before it bills an invocation).
    filters: [
      lambda.FilterCriteria.filter({
        dynamodb: { Keys: { [tableDefinition.sortKey]: { S: lambda.FilterRule.isEqual(keys.room('any').sk) } } },
      }),
    ],
  });
}
