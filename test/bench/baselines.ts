import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { keys } from '../../core/infra/keys';
import { dynamoRoomStore } from '../../core/rooms/dynamo-room-store';
import type { StoredMember } from '../../core/rooms/document';
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
 * The counter and the rooms the claim alone fills live in tables of their own, so nothing of
 * the platform (sweeper, lists) ever reads them.
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
   * through the platform's own room store (`dynamoRoomStore(…).claim`, the very request a join
   * sends) straight to DynamoDB Local, filling `rooms` copies of `template` (a ready room's
   * item as the platform stored it) one after another, as the hot room's players do through
   * the API. What no API in front of it can beat on this machine: the hot room's ceiling.
   */
  documentFill(clients: number, template: StoredRoom, rooms: number, onClaim?: () => void): Promise<RateSample>;
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
/** Keyed as the platform's table (`keys.room`), without its indexes. */
const roomsTableName = 'bench-baseline-rooms';
const counterKey = { pk: 'counter' };
let documentFills = 0;

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

/** A room's item as the platform stored it (`BenchPlatform.storedRoom`). */
export type StoredRoom = Record<string, unknown>;

/** Copies of `template` under fresh room ids, heard from now, in the rooms table. */
async function copiesOf(db: DynamoDBDocumentClient, template: StoredRoom, rooms: number): Promise<string[]> {
  const ids = Array.from({ length: rooms }, () => `bench-fill-${documentFills++}`);
  const now = new Date().toISOString();
  for (const roomId of ids)
    await db.send(
      new PutCommand({
        TableName: roomsTableName,
        Item: {
          ...template,
          ...keys.room(roomId),
          roomId,
          ...('lastHeartbeatAt' in template ? { lastHeartbeatAt: now } : {}),
        },
      }),
    );
  return ids;
}

/** `Baselines.documentFill`. */
async function documentFill(
  db: DynamoDBDocumentClient,
  shape: { readonly clients: number; readonly template: StoredRoom; readonly rooms: number },
  onClaim?: () => void,
): Promise<RateSample> {
  const store = dynamoRoomStore(db, roomsTableName);
  const ids = await copiesOf(db, shape.template, shape.rooms);
  // The member a join writes: a reservation of the same room, as its creator's was written.
  const [creator = {}] = Object.values((shape.template.members ?? {}) as Record<string, Record<string, unknown>>);
  const { k: creatorKey, ...member } = creator;
  let operations = 0;
  let errors = 0;
  let current = 0;
  let account = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: shape.clients }, async () => {
      while (current < ids.length) {
        const r = current;
        const now = Date.now();
        const spec = {
          members: [
            {
              account: `bench-fill-${account++}`,
              keyHash: 'k'.repeat(String(creatorKey ?? '').length || 22),
              member: { ...member, t: now } as unknown as StoredMember,
            },
          ],
          heartbeatSince: new Date(now - 60_000).toISOString(),
        };
        const claimed = await store.claim(ids[r] as string, spec, now).catch(() => undefined);
        if (claimed?.state === 'Claimed') {
          operations++;
          onClaim?.();
        } else if (claimed?.state === 'Full') {
          if (current === r) current++;
        } else errors++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  return { clients: shape.clients, operations, errors, elapsedMs, perSecond: perSecond(operations, elapsedMs) };
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
  await db.send(
    new CreateTableCommand({
      TableName: roomsTableName,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
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
    documentFill: (clients, template, rooms, onClaim) => documentFill(db, { clients, template, rooms }, onClaim),
    close: async () => {
      const closed = new Promise<void>((resolve) => echo.server.close(() => resolve()));
      echo.server.closeAllConnections();
      await closed;
      for (const TableName of [tableName, roomsTableName])
        await db.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
      db.destroy();
    },
  };
}
