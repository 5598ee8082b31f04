import * as path from 'node:path';
import { Aws, Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  eventSourceMaxConcurrency,
  maxConcurrencySchema,
  minVisibilityTimeoutS,
  queueUrlVariable,
} from '../../../core/infra/queues';
import { tableDefinition } from '../../../core/infra/table';
import { lockFile, repoRoot } from '../paths';
import type { GameServerFleet } from './game-server-fleet';
import type { ProjectQueue } from './project-queue';
import { assignQueueSuffix } from '../../../core/protocol/queue-names';

/**
 * Environment variable names the handlers read. They must match the schema in
 * core/infra/config.ts; test/cdk/stack.test.ts parses a deployed function's environment with
 * `parseConfig` to prove it.
 */
const env = {
  tableName: 'TABLE_NAME',
  authIssuer: 'AUTH_ISSUER',
  authAudience: 'AUTH_AUDIENCE',
  replyQueuePrefix: 'REPLY_QUEUE_PREFIX',
  roomRegion: 'ROOM_REGION',
  /** Not read by core/infra/config.ts yet: the handler resolves the secret into TOKEN_SIGNING_JWK. */
  tokenSigningJwkSecretArn: 'TOKEN_SIGNING_JWK_SECRET_ARN',
} as const;

export type TableAccess = 'read' | 'readWrite';
/** `url`: only the queue's URL, for a function that hands it to game servers. */
export type QueueAccess = 'send' | 'consume' | 'url' | 'observe';

/** Item-level actions on the base table. Scan only where a function opts in (the sweeper). */
const tableReadActions = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const tableWriteActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
/** Indexes are only ever queried. */
const indexActions = ['dynamodb:Query'];

export interface AuthSettings {
  /** JWT `iss` the API Gateway authorizer and the handlers accept. */
  readonly issuer: string;
  /** JWT `aud`; API Gateway requires one for a JWT authorizer. */
  readonly audience?: string;
}

export interface ProjectFunctionProps {
  /** Module exporting `handler`, relative to the repository root (as in lambdas/http/routes.ts). */
  readonly entry: string;
  readonly description?: string;
  /** @default 512 MiB (more memory is more CPU: shorter cold starts) */
  readonly memorySize?: number;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** @default one month */
  readonly logRetention?: logs.RetentionDays;
  /**
   * A log group several functions share (the API's routes): Lambda names each stream after
   * its function, so one group still tells them apart, and each function's own group would
   * cost a CloudFormation resource apiece. @default a log group of the function's own
   */
  readonly logGroup?: logs.ILogGroup;
  readonly environment?: Readonly<Record<string, string>>;
  /** Commands run after esbuild bundled the code, to add files to the bundle in `outputDir`. */
  readonly afterBundling?: (outputDir: string) => string[];
}

/** `-c bundleAwsSdk=true`: bundle the lock file's SDK instead of using the runtime's. */
function bundlesAwsSdk(scope: Construct): boolean {
  const value: unknown = scope.node.tryGetContext('bundleAwsSdk');
  return value === true || value === 'true';
}

/**
 * The one way this project builds a Lambda function: Node.js 24 on Graviton, bundled by the
 * local esbuild (minified, with source maps), JSON logs into its own log group with a
 * retention, active tracing, and a role that starts empty and receives only what the
 * `bind*` methods grant.
 */
export class ProjectFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.ILogGroup;
  /** Set by bindTokenSigningKey: the function needs the key in the secret before it serves. */
  private signsTokens = false;

  constructor(scope: Construct, id: string, props: ProjectFunctionProps) {
    super(scope, id);

    this.logGroup =
      props.logGroup ??
      new logs.LogGroup(this, 'Logs', {
        retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      });

    // An explicit role instead of the default one, which would carry the AWS managed
    // AWSLambdaBasicExecutionRole policy (logs on every log group of the account).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Roomkeeper ${props.entry}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(repoRoot, props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: lockFile,
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: lambda.Tracing.ACTIVE,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        // CommonJS output; esbuild converts ESM-only dependencies such as @middy/core.
        format: OutputFormat.CJS,
        target: 'node24',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Quiet synthesis: esbuild's warnings and errors only, not a size report per function.
        logLevel: LogLevel.WARNING,
        // The SDK comes from the Node.js 24 runtime: with the `sdkV3ExcludeSmithyPackages` flag
        // (cdk.json) both @aws-sdk/* and @smithy/* stay external, so the @smithy/node-http-handler
        // the handlers hand to the SDK clients and the clients still come from one tree (the
        // runtime's). Bundling them took every function past 1.3 MB; without them the largest
        // is about 0.6 MB (`npm run synth` prints them). The price: the runtime's SDK version,
        // not the lock file's, runs in AWS; `-c bundleAwsSdk=true` bundles the lock file's again.
        bundleAwsSDK: bundlesAwsSdk(this),
        ...(props.afterBundling
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => props.afterBundling!(outputDir),
              },
            }
          : {}),
      },
    });

    // Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords on "*" to the
    // role's default policy. It is the only statement on "*" (the stack test checks that).
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions; ' +
        'the test asserts every other statement of this role names its resources.',
    });
  }

  /**
   * Grants item access to `table` (and Query on its indexes) and sets `TABLE_NAME`. Never
   * Scan: every lookup is a key or an index query (only the sweeper is granted Scan besides,
   * for a release's one-time pass: cdk/lib/constructs/platform-schedules.ts).
   */
  bindTable(table: dynamodb.ITable, mode: TableAccess): this {
    const actions = [...tableReadActions, ...(mode === 'readWrite' ? tableWriteActions : [])];
    iam.Grant.addToPrincipal({ grantee: this.role, actions, resourceArns: [table.tableArn] });
    const indexArns = tableDefinition.globalSecondaryIndexes.map(
      (index) => `${table.tableArn}/index/${index.indexName}`,
    );
    if (indexArns.length > 0) {
      iam.Grant.addToPrincipal({ grantee: this.role, actions: indexActions, resourceArns: indexArns });
    }
    if (table.encryptionKey) {
      if (mode === 'read') table.encryptionKey.grantDecrypt(this.role);
      else table.encryptionKey.grantEncryptDecrypt(this.role);
    }
    this.function.addEnvironment(env.tableName, table.tableName);
    return this;
  }

  /**
   * `send`: may send to the queue, and gets its URL in `QUEUE_URL_<ID>`.
   * `consume`: the queue feeds this function through an event source mapping with the
   * definition's batch size and partial batch failures, running at most `maxConcurrency`
   * invocations at once (default: the definition's); the function gets the URL too.
   * `url`: gets the URL in `QUEUE_URL_<ID>` and no permission on the queue.
   * `observe`: the URL, and may read the queue's attributes (its backlog) but no message.
   */
  bindQueue(projectQueue: ProjectQueue, mode: QueueAccess, options: { readonly maxConcurrency?: number } = {}): this {
    const { queue, definition } = projectQueue;
    if (mode === 'url' || mode === 'observe') {
      this.function.addEnvironment(queueUrlVariable(definition.id), queue.queueUrl);
      if (mode === 'observe') {
        iam.Grant.addToPrincipal({
          grantee: this.role,
          actions: ['sqs:GetQueueAttributes'],
          resourceArns: [queue.queueArn],
        });
      }
      return this;
    }
    if (mode === 'send') {
      queue.grantSendMessages(this.role);
      this.function.addEnvironment(queueUrlVariable(definition.id), queue.queueUrl);
      return this;
    }
    const timeout = this.function.timeout?.toSeconds() ?? 3;
    if (definition.visibilityTimeoutS < minVisibilityTimeoutS(timeout)) {
      throw new Error(
        `${this.node.path}: the visibility timeout of queue ${definition.id} (${definition.visibilityTimeoutS} s) ` +
          `is under 6 × the function's timeout (${timeout} s); a batch would be redelivered while it runs.`,
      );
    }
    // The event source mapping grants receive/delete/change-visibility on this queue only. The
    // consumer uses change-visibility itself (a handed-back message comes back in seconds, not
    // after the visibility timeout), which needs the queue's URL.
    this.function.addEnvironment(queueUrlVariable(definition.id), queue.queueUrl);
    // The cap is the mapping's, not a reservation: it takes no execution from the account's
    // unreserved pool (which Lambda keeps at 100 or more), and the mapping never polls more
    // batches than it may run, so none is throttled back to the queue toward its dead letters.
    const maxConcurrency = options.maxConcurrency ?? definition.maxConcurrency;
    if (maxConcurrency !== undefined && !maxConcurrencySchema.safeParse(maxConcurrency).success) {
      throw new Error(
        `${this.node.path}: the concurrency cap of queue ${definition.id} must be an integer from ` +
          `${eventSourceMaxConcurrency.min} to ${eventSourceMaxConcurrency.max}, not ${maxConcurrency}.`,
      );
    }
    this.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: definition.batchSize,
        reportBatchItemFailures: true,
        ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
      }),
    );
    return this;
  }

  /**
   * `send`: may send replies to the reply queues of controller sidecars: every queue whose
   * name starts with `prefix` in this account and region (their names are only known at run
   * time). `assign`: that, and receiving from the standby servers' assign queues
   * (`<prefix>*-assign`), where the answer to `assign` comes back. `name`: no permission, for
   * a function that hands the prefix to the sidecars it starts. All set `REPLY_QUEUE_PREFIX`.
   */
  bindReplyQueues(prefix: string, access: 'send' | 'assign' | 'name' = 'send'): this {
    this.function.addEnvironment(env.replyQueuePrefix, prefix);
    if (access === 'name') return this;
    // Pseudo parameters, never the stack's literal region/partition: the ARN (and so the
    // cdk-nag finding acknowledged below) reads the same in env-agnostic and pinned stacks.
    const replyQueues = `arn:${Aws.PARTITION}:sqs:${Aws.REGION}:${Aws.ACCOUNT_ID}:${prefix}*`;
    // GetQueueUrl: a function without the controller queue's URL finds a room's queue by name
    // (core/infra/queue-urls.ts); with it, the URL is the controller queue's sibling.
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
      resourceArns: [replyQueues],
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${prefix}*]`,
      reason:
        'Each game server task creates its own reply queue at run time; the grant is SendMessage and GetQueueUrl only, ' +
        `on queues named ${prefix}* of this deployment.`,
    });
    if (access === 'assign') {
      const assignQueues = `${replyQueues}${assignQueueSuffix}`;
      iam.Grant.addToPrincipal({ grantee: this.role, actions: ['sqs:ReceiveMessage'], resourceArns: [assignQueues] });
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${prefix}*${assignQueueSuffix}]`,
        reason:
          'Each standby game server creates its own assign queue at run time; the grant is ReceiveMessage only, on ' +
          `queues named ${prefix}*${assignQueueSuffix} of this deployment.`,
      });
    }
    return this;
  }

  /**
   * `run`: may start game server tasks (and stop them); `stop`: may only stop them. Both set
   * the spawner's settings (cluster, task definition, subnets, security group, controller
   * container): the ECS spawner needs all of them even just to stop a task.
   */
  bindFleet(fleet: GameServerFleet, access: 'run' | 'stop'): this {
    fleet.grantSpawner(this.role, access);
    for (const [name, value] of Object.entries(fleet.spawnerEnvironment)) this.function.addEnvironment(name, value);
    return this;
  }

  /** The fleet's spawn timing and port capacity (CREATE_WAIT_S, DEFAULT_SPAWN_TIMEOUT_S, FLEET_GAME_PORTS). */
  bindFleetLimits(fleet: GameServerFleet): this {
    for (const [name, value] of Object.entries(fleet.limitsEnvironment)) this.function.addEnvironment(name, value);
    return this;
  }

  /** May register a task definition revision per configuration (its own image and ports). */
  bindTaskDefinitions(fleet: GameServerFleet): this {
    for (const [name, value] of Object.entries(fleet.grantTaskDefinitions(this.role))) {
      this.function.addEnvironment(name, value);
    }
    return this;
  }

  /** May find a game server task's public IPv4 (at `inited`: a room is ready to players only with it). */
  bindServerLookup(fleet: GameServerFleet): this {
    for (const [name, value] of Object.entries(fleet.grantServerLookup(this.role)))
      this.function.addEnvironment(name, value);
    return this;
  }

  /** May issue room-scoped sessions of the fleet's sidecar role (at spawn, and on renewal). */
  bindSidecarCredentials(fleet: GameServerFleet): this {
    for (const [name, value] of Object.entries(fleet.grantSidecarCredentials(this.role))) {
      this.function.addEnvironment(name, value);
    }
    return this;
  }

  /** May read the key sidecar secrets are sealed under (starting game servers). */
  bindSidecarEnvelope(fleet: GameServerFleet): this {
    for (const [name, value] of Object.entries(fleet.grantEnvelopeKey(this.role))) {
      this.function.addEnvironment(name, value);
    }
    return this;
  }

  /** The region name this deployment gives its rooms (`ROOM_REGION`). */
  bindRoomRegion(region: string): this {
    this.function.addEnvironment(env.roomRegion, region);
    return this;
  }

  /**
   * May read the private JWK that signs platform-issued tokens (GetSecretValue on that
   * secret only); its ARN is in `TOKEN_SIGNING_JWK_SECRET_ARN`.
   */
  bindTokenSigningKey(secret: secretsmanager.ISecret): this {
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: ['secretsmanager:GetSecretValue'],
      resourceArns: [secret.secretArn],
    });
    secret.encryptionKey?.grantDecrypt(this.role);
    this.function.addEnvironment(env.tokenSigningJwkSecretArn, secret.secretArn);
    this.signsTokens = true;
    return this;
  }

  /** Whether bindTokenSigningKey was called. */
  get readsSigningKey(): boolean {
    return this.signsTokens;
  }

  /**
   * Sets the variables the handlers verify tokens with: the authorizer's issuer and audience.
   * No key set address: the handlers find the keys through the issuer's OpenID discovery,
   * as the authorizer does (core/auth/issuer-discovery.ts), so the two cannot disagree.
   */
  bindAuth(auth: AuthSettings): this {
    this.function.addEnvironment(env.authIssuer, auth.issuer);
    if (auth.audience) this.function.addEnvironment(env.authAudience, auth.audience);
    return this;
  }
}
