import { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { generateSigningKeyPair } from '../core/auth/tokens';
import { createDocumentClient, createSqsClient } from '../core/infra/aws-clients';
import { resetConfig } from '../core/infra/config';
import { queueDefinitions, queueUrlVariable, type QueueId } from '../core/infra/queues';
import { createTableInput, tableDefinition } from '../core/infra/table';
import { resetHttpDependencies } from '../lambdas/http/middleware';
import { routes } from '../lambdas/http/routes';
import { resetPlatform } from '../lambdas/dependencies';
import { startApiGateway, type LocalApiGateway } from './api-gateway';
import { loadLocalConfigFile, type LocalConfigFile } from './config-file';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { httpHandlers } from './http-handlers';
import { queueConsumers } from './queue-consumers';
import { createQueues, startSqsEmulator, type SqsEmulator } from './sqs-emulator';
import { startSqsPoller, type SqsPoller } from './sqs-pollers';

export interface LocalCloudOptions {
  /** HTTP port of the API; 0 picks a free one. */
  readonly port?: number;
  readonly configPath?: string;
  /** Persist DynamoDB Local's data in this directory instead of memory. */
  readonly persistDir?: string;
}

export interface LocalCloud {
  readonly apiUrl: string;
  readonly tableName: string;
  readonly dynamodb: { readonly endpoint: string; readonly pid: number };
  readonly sqs: { readonly endpoint: string; readonly queueUrls: Readonly<Record<string, string>> };
  readonly config: LocalConfigFile;
  health(): Promise<{ healthy: boolean; components: Record<string, 'up' | 'down'> }>;
  stop(): Promise<void>;
}

export const localTableName = 'roomkeeper-local';
export const localIssuer = 'roomkeeper-local';
const localQueuePrefix = 'roomkeeper-local';

async function createTable(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await db.send(new CreateTableCommand(createTableInput(tableName)));
  await db.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
}

async function ensureTable(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  try {
    await db.send(new DescribeTableCommand({ TableName: tableName }));
  } catch {
    await createTable(db, tableName);
  }
}

async function isUp(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  try {
    await check();
    return 'up';
  } catch {
    return 'down';
  }
}

/**
 * Starts the whole platform on this machine: DynamoDB Local, the SQS emulator, the queues
 * and table from the same definitions as the CDK stack, pollers that feed the queue
 * handlers, and an API Gateway-style server over the same HTTP handlers.
 */
export async function startLocalCloud(options: LocalCloudOptions = {}): Promise<LocalCloud> {
  const fileConfig = loadLocalConfigFile(options.configPath);
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    const [dynamo, sqsEmulator, keyPair] = await Promise.all([
      startDynamoDbLocal({ dbPath: options.persistDir }).then((d: DynamoDbLocal) => (started.push(d), d)),
      startSqsEmulator().then((s: SqsEmulator) => (started.push(s), s)),
      generateSigningKeyPair(),
    ]);
    const region = 'us-east-1';
    const db = createDocumentClient({ region, dynamodbEndpoint: dynamo.endpoint });
    const sqs: SQSClient = createSqsClient({ region, sqsEndpoint: sqsEmulator.endpoint });
    started.push({ stop: async () => (db.destroy(), sqs.destroy()) });
    await ensureTable(db, localTableName);
    const queueUrls = await createQueues(sqs, localQueuePrefix);

    // The handlers read their settings from the environment, exactly as in Lambda.
    Object.assign(process.env, {
      AWS_REGION: region,
      TABLE_NAME: localTableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SQS_ENDPOINT: sqsEmulator.endpoint,
      AUTH_ISSUER: localIssuer,
      AUTH_JWKS: JSON.stringify(keyPair.jwks),
      DEV_SIGNING_JWK: JSON.stringify(keyPair.privateJwk),
      ROOMKEEPER_REGION_NAME: fileConfig.region,
    });
    for (const id of Object.keys(queueDefinitions) as QueueId[]) process.env[queueUrlVariable(id)] = queueUrls[id];
    resetConfig();
    resetPlatform();
    resetHttpDependencies();
    started.push({ stop: async () => resetPlatform() });

    const pollers: SqsPoller[] = Object.entries(queueConsumers).map(([id, handler]) => {
      const definition = queueDefinitions[id as QueueId];
      return startSqsPoller({
        sqs,
        queueUrl: queueUrls[id as QueueId],
        functionName: `${id}Consumer`,
        handler,
        batchSize: definition.batchSize,
      });
    });
    started.push({ stop: async () => void (await Promise.all(pollers.map((p) => p.stop()))) });

    const health = async () => {
      const components: Record<string, 'up' | 'down'> = {
        dynamodb: await isUp(() => db.send(new DescribeTableCommand({ TableName: localTableName }))),
        sqs: await isUp(() =>
          Promise.all(
            Object.values(queueUrls).map((QueueUrl) =>
              sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] })),
            ),
          ),
        ),
        pollers: pollers.every((p) => p.running) ? 'up' : 'down',
      };
      return { healthy: Object.values(components).every((c) => c === 'up'), components };
    };

    const gateway: LocalApiGateway = await startApiGateway({
      routes,
      handlers: httpHandlers,
      port: options.port ?? 3000,
      ownRoutes: [
        {
          method: 'GET',
          path: '/health',
          handle: async () => {
            const { healthy, components } = await health();
            return { status: healthy ? 200 : 503, body: { status: healthy ? 'ok' : 'degraded', components } };
          },
        },
        { method: 'GET', path: '/.well-known/jwks.json', handle: async () => ({ status: 200, body: keyPair.jwks }) },
      ],
    });
    started.push({ stop: () => gateway.close() });

    return {
      apiUrl: gateway.url,
      tableName: localTableName,
      dynamodb: { endpoint: dynamo.endpoint, pid: dynamo.pid },
      sqs: { endpoint: sqsEmulator.endpoint, queueUrls },
      config: fileConfig,
      health,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
