import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { PlatformConfig } from './config';

/** Emulators accept any credentials; AWS uses the Lambda role's. */
const emulatorCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * One keep-alive connection pool per process. DynamoDB Local's accept backlog is 50, so a
 * burst of new connections would stall: the pool stays below it.
 */
function requestHandler(): NodeHttpHandler {
  return new NodeHttpHandler({
    httpAgent: new Agent({ keepAlive: true, maxSockets: 48 }),
    httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 48 }),
  });
}

export function createDocumentClient(
  config: Pick<PlatformConfig, 'region' | 'dynamodbEndpoint'>,
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    requestHandler: requestHandler(),
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint, credentials: emulatorCredentials } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function createSqsClient(
  config: Pick<PlatformConfig, 'region' | 'sqsEndpoint'> & { credentials?: SQSClientConfig['credentials'] },
): SQSClient {
  return new SQSClient({
    region: config.region,
    requestHandler: requestHandler(),
    // A deployed sidecar's scoped, renewed session; otherwise the default chain (the Lambda role).
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // The emulator puts its own host name in queue URLs; send to the endpoint we were given.
    ...(config.sqsEndpoint
      ? { endpoint: config.sqsEndpoint, credentials: emulatorCredentials, useQueueUrlAsEndpoint: false }
      : {}),
  });
}
