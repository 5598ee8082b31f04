import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../../core/infra/aws-clients';

/**
 * A burst larger than the connection pool waits its turn for a socket: that wait is load, not a
 * dependency that cannot be reached. A DynamoDB that takes 1.5 s per answer and 150 reads at
 * once: the third round waits about 3 s for a socket, and must still be answered.
 */
const answerMs = 1_500;
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
        response.end('{}');
      }, answerMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('does not count the wait for a pooled socket as a connection that failed', async () => {
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: endpoint });
  const reads = Array.from({ length: 150 }, (_, i) =>
    db.send(new GetCommand({ TableName: 't', Key: { pk: `k${i}`, sk: 's' } })).then(
      () => 'answered',
      (error: Error) => `${error.name}: ${error.message}`,
    ),
  );
  const outcomes = await Promise.all(reads);
  db.destroy();
  expect(outcomes.filter((o) => o !== 'answered')).toEqual([]);
});
