import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createTokenSigner, generateSigningKeyPair } from '../../core/auth/tokens';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { createTableInput } from '../../core/infra/table';
import { RoomStore } from '../../core/rooms/store';
import { routes } from '../../lambdas/http/routes';
import { resetPlatform } from '../../lambdas/dependencies';
import { startApiGateway } from '../../local/api-gateway';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { httpHandlers } from '../../local/http-handlers';
import { jsonClient } from '../helpers/http';
import { formatMs, median, percentile } from './stats';

/**
 * Join latency through the whole HTTP path (gateway → middleware → joinRoom → DynamoDB
 * transaction), against one bare conditional UpdateItem on the same DynamoDB Local in the
 * same run. The ratio is the figure: it says what the platform adds per join.
 */
export async function benchJoinLatency(samples = 500): Promise<void> {
  process.stdout.write(`join latency: ${samples} sequential joins vs ${samples} bare conditional UpdateItems\n`);
  const dynamo = await startDynamoDbLocal();
  const tableName = `bench-${randomUUID().slice(0, 8)}`;
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: dynamo.endpoint });
  try {
    await db.send(new CreateTableCommand(createTableInput(tableName)));
    const keyPair = await generateSigningKeyPair();
    Object.assign(process.env, {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AUTH_ISSUER: 'bench',
      AUTH_JWKS: JSON.stringify(keyPair.jwks),
      TOKEN_SIGNING_JWK: JSON.stringify(keyPair.privateJwk),
      JOIN_RATE_LIMIT_PER_MINUTE: String(samples * 10),
    });
    resetPlatform();
    const gateway = await startApiGateway({ routes, handlers: httpHandlers, port: 0 });
    const call = jsonClient(gateway.url);
    const sign = createTokenSigner(keyPair.privateJwk, 'bench');
    const rooms = new RoomStore(db, tableName);
    const now = new Date();
    const roomIds: string[] = [];
    for (let i = 0; i < Math.ceil((samples * 2) / 100); i++) {
      const roomId = randomUUID();
      roomIds.push(roomId);
      await rooms.create({
        roomId,
        gameId: 'bench',
        version: '1',
        region: 'local',
        state: 'ready',
        settings: {},
        maxPlayers: 100,
        players: 0,
        changeNumber: 1,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        owner: 'bench',
        reservationTimeoutS: 600,
        spawnDeadline: now.toISOString(),
        placement: { taskId: 'bench', host: '127.0.0.1', ports: [1] },
      });
    }
    await db.send(new PutCommand({ TableName: tableName, Item: { pk: 'BENCH', sk: 'COUNTER', n: 0 } }));
    const rawUpdate = () =>
      db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: 'BENCH', sk: 'COUNTER' },
          UpdateExpression: 'SET n = n + :one',
          ConditionExpression: 'n < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': 1_000_000_000 },
        }),
      );
    const tokens = await Promise.all(
      Array.from({ length: samples * 2 }, (_, i) => sign({ account: `p${i}`, scopes: [], ttlS: 3600 })),
    );
    const join = (i: number) => call('POST', `/v1/rooms/${roomIds[Math.floor(i / 100)]}/join`, { token: tokens[i] });

    // DynamoDB Local is a JVM: warm both paths for a few seconds before measuring.
    const warmUntil = Date.now() + 6_000;
    for (let i = 0; Date.now() < warmUntil; i++) {
      await rawUpdate();
      if (i < samples) await join(samples + i);
    }
    const raw: number[] = [];
    const joins: number[] = [];
    for (let i = 0; i < samples; i++) {
      let t = performance.now();
      await rawUpdate();
      raw.push(performance.now() - t);
      t = performance.now();
      const response = await join(i);
      joins.push(performance.now() - t);
      if (response.status !== 200)
        throw new Error(`join answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    await gateway.close();
    const base = median(raw);
    process.stdout.write(
      [
        `  bare conditional UpdateItem    p50 ${formatMs(base)}   p99 ${formatMs(percentile(raw, 99))}   (baseline, same run)`,
        `  POST /v1/rooms/{id}/join       p50 ${formatMs(median(joins))}   p99 ${formatMs(percentile(joins, 99))}`,
        `  ratio join p50 / UpdateItem p50   ${(median(joins) / base).toFixed(2)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await db.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    db.destroy();
    resetPlatform();
    await dynamo.stop();
  }
}
