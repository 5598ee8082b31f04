import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { WebSocket, WebSocketServer } from 'ws';
import { Pair } from 'zeromq';

/**
 * Raw parts of the platform's paths, each timed alone: what a path through several of them
 * is compared with. Each `start…` returns a function that times one round trip (ms).
 */

/** One message sent to a queue of the same SQS emulator and received back (then deleted). */
export async function startSqsRoundTrips(sqs: SQSClient, queueName: string): Promise<() => Promise<number>> {
  const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
  if (!queueUrl) throw new Error('the SQS emulator returned no queue URL');
  return async () => {
    const started = performance.now();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"bench":true}' }));
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 5 }),
      );
      const [message] = Messages;
      if (message) {
        const elapsed = performance.now() - started;
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
        return elapsed;
      }
    }
  };
}

/**
 * One JSON-RPC-sized request and its answer between two ZeroMQ PAIR sockets over `ipc://`,
 * the transport and socket type the sidecar and its game use.
 */
export async function startZeroMqRoundTrips(): Promise<{ roundTrip: () => Promise<number>; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-zmq-'));
  const endpoint = `ipc://${dir}/rtt.sock`;
  const server = new Pair({ linger: 0 });
  const client = new Pair({ linger: 0 });
  await server.bind(endpoint);
  client.connect(endpoint);
  let serving = true;
  void (async () => {
    while (serving) {
      const [frame] = await server.receive().catch(() => [undefined]);
      if (!frame) return;
      const request = JSON.parse(String(frame)) as { id: number };
      await server.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { account: 'bench' } }));
    }
  })();
  let id = 0;
  return {
    roundTrip: async () => {
      const started = performance.now();
      await client.send(
        JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'joined', params: { key: 'k'.repeat(22) } }),
      );
      await client.receive();
      return performance.now() - started;
    },
    close: () => {
      serving = false;
      client.close();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One message to a loopback WebSocket echo server and its echo, on an open connection. */
export async function startWebSocketRoundTrips(): Promise<{
  roundTrip: () => Promise<number>;
  close: () => Promise<void>;
}> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket) => socket.on('message', (data) => socket.send(data.toString())));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const socket = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    roundTrip: () =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        socket.once('message', () => resolve(performance.now() - started));
        socket.send('k'.repeat(22));
      }),
    close: async () => {
      socket.close();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
