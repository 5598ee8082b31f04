import { Agent, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { PlatformConfig } from './config';
import { conditionRefusals } from './condition-refusals';
import { childLogger } from './logger';

/**
 * The HTTP handler's own warnings (sockets at capacity, a request timing out) as structured log
 * lines: its default is `console`, whose lines are neither JSON nor quieted where logs are.
 */
const handlerLog = childLogger('aws-http');
const handlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: (message: string) => handlerLog.info(message),
  warn: (message: string) => handlerLog.warn(message),
  error: (message: string) => handlerLog.error(message),
};

/** Emulators accept any credentials; AWS uses the Lambda role's. */
const emulatorCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * How long one attempt may take. A healthy DynamoDB answers in milliseconds (the local
 * emulator in tens at worst); without a bound, a stalled one held requests for 36 s. With
 * three attempts of up to 3 s each and the SDK's jittered backoff, a stalled dependency fails a
 * call in about 10 s (`UNAVAILABLE`), and a refused connection in well under 1 s.
 */
const dependencyTimeouts = {
  /**
   * A connect that sees no answer, from the socket's creation (not the request's: see
   * `withConnectTimeout`). Not shorter: a burst of new connections overflows DynamoDB
   * Local's accept backlog (50) and the kernel retries a dropped SYN after 1 s. A stalled
   * (SIGSTOPped) server still accepts connections; a dead one refuses them at once.
   */
  connectionMs: 3_000,
  /**
   * How long a DynamoDB request may sit on its socket without an answer. Not a wall-clock
   * limit: time spent waiting for a pooled socket is not counted, since a burst of hundreds of
   * joins queues there legitimately, while a stalled DynamoDB leaves sockets silent. Not
   * shorter: the local cloud starting fifty game servers at once starves DynamoDB Local's JVM
   * of CPU for a second or two, and that is load, not an outage.
   */
  dynamodbSilenceMs: 3_000,
  sqsRequestMs: 5_000,
  /** SQS long polls wait up to 20 s by design; their own timeout must outlast that. */
  sqsLongPollRequestMs: 25_000,
  maxAttempts: 3,
} as const;

type HandleArguments = Parameters<NodeHttpHandler['handle']>;

/** Gives ReceiveMessage (a long poll) a timeout longer than its wait; every other call keeps the short one. */
class SqsRequestHandler extends NodeHttpHandler {
  override handle(
    request: HandleArguments[0],
    options: HandleArguments[1] = {},
  ): ReturnType<NodeHttpHandler['handle']> {
    const longPoll = request.headers['x-amz-target'] === 'AmazonSQS.ReceiveMessage';
    return super.handle(
      request,
      longPoll
        ? { ...options, requestTimeout: options.requestTimeout ?? dependencyTimeouts.sqsLongPollRequestMs }
        : options,
    );
  }
}

/**
 * Fails a socket that has not connected `connectMs` after the agent created it. The SDK's own
 * `connectionTimeout` starts with the request, so a request waiting its turn for one of the
 * pool's sockets (a burst of hundreds of joins in the local cloud's one process) was failed
 * as "could not connect" while no connection was even being made; this counts connecting only.
 */
function withConnectTimeout<A extends Agent>(agent: A, connectMs: number): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options: ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void) => {
    const socket = create(options, callback) as Socket | null | undefined;
    if (!socket?.connecting) return socket;
    const timer = setTimeout(() => socket.destroy(connectTimeoutError(connectMs)), connectMs);
    const settled = () => clearTimeout(timer);
    socket.once('connect', settled);
    socket.once('close', settled);
    return socket;
  };
  return agent;
}

/** Named as the SDK names its timeouts, so core/infra/dependency-errors.ts classifies it alike. */
function connectTimeoutError(connectMs: number): Error {
  return Object.assign(new Error(`The connection to the dependency was not established within ${connectMs} ms.`), {
    name: 'TimeoutError',
  });
}

/**
 * One keep-alive connection pool per process. DynamoDB Local's accept backlog is 50, so a
 * burst of new connections would stall: the pool stays below it. Timeouts throw (the
 * handler only warns by default), so the SDK retries and then gives up.
 */
function handlerOptions(timeouts: { requestTimeout: number } | { socketTimeout: number }) {
  const connectMs = dependencyTimeouts.connectionMs;
  return {
    httpAgent: withConnectTimeout(new Agent({ keepAlive: true, maxSockets: 48 }), connectMs),
    httpsAgent: withConnectTimeout(new HttpsAgent({ keepAlive: true, maxSockets: 48 }), connectMs),
    ...timeouts,
    throwOnRequestTimeout: true,
    logger: handlerLogger,
  };
}

/**
 * The SDK's logging middleware filters every request's input and answer for a logger that is
 * never configured (the SDK's is a no-op; ours logs what matters itself): walking a room's
 * members twice per request for nothing.
 */
function withoutSdkLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

export function createDocumentClient(
  config: Pick<PlatformConfig, 'region' | 'dynamodbEndpoint'>,
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    requestHandler: new NodeHttpHandler(handlerOptions({ socketTimeout: dependencyTimeouts.dynamodbSilenceMs })),
    maxAttempts: dependencyTimeouts.maxAttempts,
    ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint, credentials: emulatorCredentials } : {}),
  });
  withoutSdkLogging(client).middlewareStack.use(conditionRefusals);
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** The commands that change the table (whatever their outcome: a refused condition changes nothing, and costs one read). */
const tableWriteCommand = /^(Put|Update|Delete|TransactWrite|BatchWrite)/;

/**
 * Calls `listener` after each write command the client sent was answered: the local cloud's
 * stream reader reads the table's stream at once instead of at its next poll.
 */
export function afterTableWrites(db: DynamoDBDocumentClient, listener: () => void): void {
  db.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } finally {
        if (tableWriteCommand.test(context.commandName ?? '')) listener();
      }
    },
    { step: 'initialize', name: 'afterTableWrites' },
  );
}

export function createSqsClient(
  config: Pick<PlatformConfig, 'region' | 'sqsEndpoint'> & { credentials?: SQSClientConfig['credentials'] },
): SQSClient {
  return withoutSdkLogging(
    new SQSClient({
      region: config.region,
      requestHandler: new SqsRequestHandler(handlerOptions({ requestTimeout: dependencyTimeouts.sqsRequestMs })),
      maxAttempts: dependencyTimeouts.maxAttempts,
      // A deployed sidecar's scoped, renewed session; otherwise the default chain (the Lambda role).
      ...(config.credentials ? { credentials: config.credentials } : {}),
      // The emulator puts its own host name in queue URLs; send to the endpoint we were given.
      ...(config.sqsEndpoint
        ? { endpoint: config.sqsEndpoint, credentials: emulatorCredentials, useQueueUrlAsEndpoint: false }
        : {}),
    }),
  );
}
