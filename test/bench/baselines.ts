import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { claimUpdate } from '../../core/sessions/join-conditions';
import { benchClient } from './http-client';
import { perSecond } from './stats';

/**
 * The raw parts a join is compared with, measured on the same machine, the same DynamoDB
 * Local and the same SDK client factory as the platform, in the same run:
 *
 * - one conditional UpdateItem (an ADD that succeeds) on one small item, and
 * - one HTTP round trip to a plain node:http echo server on loopback, through the same
 *   fetch-based client the bench's players use.
 *
 * The counter lives in its own small table so nothing of the platform (sweeper, lists)
 * ever reads it.
 */
export interface Baselines {
  /** One conditional UpdateItem; resolves with its latency in ms. */
  update(): Promise<number>;
  /** One loopback HTTP echo round trip; resolves with its latency in ms. */
  echo(): Promise<number>;
  /** Successful conditional updates per second on the one item from `clients` concurrent callers. */
  updateRate(clients: number, durationMs: number, onOperation?: () => void): Promise<RateSample>;
  /**
   * `clients` callers each send one conditional update at once: the time until the last
   * succeeds is what placing as many players would take if each needed exactly one write.
   */
  updateBurst(clients: number): Promise<{ readonly elapsedMs: number; readonly errors: number }>;
  /**
   * The join's own write with nothing around it: `clients` concurrent callers send the claim
   * the platform sends (`claimUpdate`, `UPDATED_NEW`, `ALL_OLD` on failure) straight to
   * DynamoDB Local, filling `rooms` session documents of `roomSize` one after another, as the
   * hot room's players do through the API. What no API in front of it can beat on this
   * machine: the hot room's ceiling.
   */
  documentFill(clients: number, rooms: number, roomSize: number, onClaim?: () => void): Promise<RateSample>;
  close(): Promise<void>;
}

export interface RateSample {
  readonly clients: number;
  readonly operations: number;
  readonly errors: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
}

const tableName = 'bench-baseline';
const counterKey = { pk: 'counter' };
let documentFills = 0;

/** A ready room as the platform stores it, held by its creator (scopes `play`, as the bench's players). */
function roomDocument(pk: string, roomSize: number, now: number) {
  return {
    pk,
    state: 'ready',
    players: 1,
    maxPlayers: roomSize,
    changeNumber: 1,
    reservationTimeoutS: 3_600,
    members: { 'bench-creator': { s: 0, t: now, c: ['play'], k: 'k'.repeat(22) } },
  };
}

/** The update the baselines time: a conditional ADD on a small item, which always succeeds. */
function conditionalAdd(db: DynamoDBDocumentClient) {
  return db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: counterKey,
      UpdateExpression: 'ADD n :one',
      ConditionExpression: 'attribute_not_exists(n) OR n < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': Number.MAX_SAFE_INTEGER },
    }),
  );
}

async function startEchoServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8') || '{}';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"echo":${body}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function updateRate(
  db: DynamoDBDocumentClient,
  clients: number,
  durationMs: number,
  onOperation?: () => void,
): Promise<RateSample> {
  let operations = 0;
  let errors = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        await conditionalAdd(db).then(
          () => {
            operations++;
            onOperation?.();
          },
          () => void errors++,
        );
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return { clients, operations, errors, elapsedMs, perSecond: perSecond(operations, elapsedMs) };
}

/** `Baselines.documentFill`: the platform's claim, sent straight to DynamoDB Local. */
async function documentFill(
  db: DynamoDBDocumentClient,
  shape: { readonly clients: number; readonly rooms: number; readonly roomSize: number },
  onClaim?: () => void,
): Promise<RateSample> {
  const { clients, rooms, roomSize } = shape;
  let operations = 0;
  let errors = 0;
  const now = Date.now();
  const pks = Array.from({ length: rooms }, () => `room-${documentFills++}`);
  for (const pk of pks) await db.send(new PutCommand({ TableName: tableName, Item: roomDocument(pk, roomSize, now) }));
  let current = 0;
  let account = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (current < rooms) {
        const r = current;
        const spec = {
          account: `bench-fill-${account++}`,
          keyHash: 'k'.repeat(22),
          member: { s: 0, t: Date.now(), c: ['play'] },
        };
        try {
          await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { pk: pks[r] },
              ...claimUpdate(spec),
              ReturnValues: 'UPDATED_NEW',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          );
          operations++;
          onClaim?.();
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) {
            if (current === r) current++;
          } else errors++;
        }
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return { clients, operations, errors, elapsedMs, perSecond: perSecond(operations, elapsedMs) };
}

export async function startBaselines(dynamodbEndpoint: string): Promise<Baselines> {
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint });
  await db.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const echo = await startEchoServer();
  const call = benchClient(echo.url);
  const timed = async (operation: () => Promise<unknown>) => {
    const started = performance.now();
    await operation();
    return performance.now() - started;
  };
  return {
    update: () => timed(() => conditionalAdd(db)),
    // The same shape of request as a join: a POST with a bearer token and a JSON body.
    echo: () => timed(() => call('POST', '/echo', { token: 'bench', body: {} })),
    updateRate: (clients, durationMs, onOperation) => updateRate(db, clients, durationMs, onOperation),
    updateBurst: async (clients) => {
      let errors = 0;
      const started = performance.now();
      await Promise.all(Array.from({ length: clients }, () => conditionalAdd(db).catch(() => void errors++)));
      return { elapsedMs: performance.now() - started, errors };
    },
    documentFill: (clients, rooms, roomSize, onClaim) => documentFill(db, { clients, rooms, roomSize }, onClaim),
    close: async () => {
      const closed = new Promise<void>((resolve) => echo.server.close(() => resolve()));
      echo.server.closeAllConnections();
      await closed;
      await db.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      db.destroy();
    },
  };
}
