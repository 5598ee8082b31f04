import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
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

export interface GameRoundTripQueues {
  /** The SQS emulator's endpoint and region, which the relay's own client uses too. */
  readonly sqsEndpoint: string;
  readonly region: string;
  /** The queue the relay long-polls (a sidecar's reply queue). */
  readonly calls: string;
  /** The queue the caller long-polls for the answer. */
  readonly answers: string;
}

export interface GameRoundTrips {
  /** One call through the relay to the game and its answer back; resolves with its latency in ms. */
  roundTrip(): Promise<number>;
  close(): Promise<void>;
}

const relayEntry = join(__dirname, 'game-round-trip/relay.ts');
const gameEntry = join(__dirname, 'game-round-trip/game.ts');
/** Untimed calls after the start: the first ones open keep-alive connections and warm the JIT. */
const warmUpCalls = 3;
const answerTimeoutMs = 30_000;

function startChild(entry: string, args: readonly string[]): { child: ChildProcess; output: () => string } {
  // stdin stays an open pipe: the child exits when it closes, so it dies with the bench.
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-2_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** One waiter at a time (rounds are sequential); a child's death fails it at once. */
function answerWaiter() {
  let waiting: { id: number; resolve: (receivedAt: number) => void; reject: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  return {
    failure: () => failure,
    fail: (error: Error) => {
      failure ??= error;
      waiting?.reject(error);
      waiting = undefined;
    },
    deliver: (id: unknown, receivedAt: number) => {
      if (waiting && id === waiting.id) {
        waiting.resolve(receivedAt);
        waiting = undefined;
      }
    },
    /** Resolves with the time the answer to call `id` was received. */
    expect: (id: number) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer from the bench's game within ${answerTimeoutMs / 1000} s`)),
          answerTimeoutMs,
        );
        waiting = {
          id,
          resolve: (receivedAt) => {
            clearTimeout(timer);
            resolve(receivedAt);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
      }),
  };
}

/** Long-polls the answers queue until `signal` aborts, handing each answer to `waiter`. */
async function pollAnswers(
  sqs: SQSClient,
  answersUrl: string,
  signal: AbortSignal,
  waiter: ReturnType<typeof answerWaiter>,
): Promise<void> {
  while (!signal.aborted) {
    let messages: Message[];
    try {
      ({ Messages: messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: answersUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }),
        { abortSignal: signal },
      ));
    } catch (error) {
      if (signal.aborted) return;
      waiter.fail(error as Error);
      return;
    }
    const receivedAt = performance.now();
    for (const message of messages) {
      // Deleted before the waiter resumes (but after its time is taken), so no clean-up
      // runs beside the next timed part.
      await sqs
        .send(new DeleteMessageCommand({ QueueUrl: answersUrl, ReceiptHandle: message.ReceiptHandle }))
        .catch(() => undefined);
      waiter.deliver((JSON.parse(message.Body ?? '{}') as { id?: unknown }).id, receivedAt);
    }
  }
}

/** Resolves once the relay says it is ready; rejects if either child exits first or after 30 s. */
function relayReady(relay: ChildProcess, children: readonly ChildProcess[], failure: () => Error | undefined) {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the bench's relay was not ready within 30 s")), 30_000);
    const onData = (chunk: Buffer) => {
      if (!chunk.toString('utf8').includes('ready')) return;
      clearTimeout(timer);
      relay.stdout?.removeListener('data', onData);
      resolve();
    };
    relay.stdout?.on('data', onData);
    for (const child of children)
      child.once('exit', () => {
        clearTimeout(timer);
        reject(failure() ?? new Error("the bench's relay or game exited before it was ready"));
      });
  });
}

/**
 * A raw round trip to a game, across processes, with nothing of Roomkeeper's logic: what a
 * warm pool's hand-over is "a few milliseconds plus". This process sends a message to the
 * `calls` queue; a separate, idle relay process long-polling it (as a sidecar polls its
 * reply queue) calls a separate game process over a ZeroMQ PAIR socket on `ipc://`, the
 * game answers at once, and the relay sends the answer to the `answers` queue, which this
 * process has been long-polling since before the send (as a waiting caller). Timed from the
 * send until the answer is received. Every cross-process wake-up of the real hand-over is in
 * it: the relay's long poll, the game's socket, the caller's long poll.
 *
 * Both children run `node --import tsx`, with the same SQS client factory as the platform.
 */
export async function startGameRoundTrips(sqs: SQSClient, queues: GameRoundTripQueues): Promise<GameRoundTrips> {
  const queueUrl = async (name: string) => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    if (!QueueUrl) throw new Error('the SQS emulator returned no queue URL');
    return QueueUrl;
  };
  const [callsUrl, answersUrl] = await Promise.all([queueUrl(queues.calls), queueUrl(queues.answers)]);
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-game-'));
  const endpoint = `ipc://${dir}/game.sock`;
  const relay = startChild(relayEntry, [queues.sqsEndpoint, queues.region, callsUrl, answersUrl, endpoint]);
  const game = startChild(gameEntry, [endpoint]);
  const children = [relay, game];
  const kill = () => children.forEach(({ child }) => child.kill('SIGKILL'));
  process.once('exit', kill);
  const waiter = answerWaiter();
  for (const [name, { child, output }] of [
    ['relay', relay],
    ['game', game],
  ] as const)
    child.once('exit', (code, signal) =>
      waiter.fail(new Error(`the bench's ${name} process exited (${code ?? signal}): ${output().trim()}`)),
    );
  const polling = new AbortController();
  const answers = pollAnswers(sqs, answersUrl, polling.signal, waiter);

  let id = 0;
  const roundTrip = async () => {
    const failure = waiter.failure();
    if (failure) throw failure;
    const call = ++id;
    const answered = waiter.expect(call);
    const started = performance.now();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: callsUrl,
        MessageBody: JSON.stringify({ id: call, params: { room_id: 'bench', game_max_players: 8 } }),
      }),
    );
    return (await answered) - started;
  };
  const close = async () => {
    process.removeListener('exit', kill);
    polling.abort();
    await Promise.all(children.map(({ child }) => stopChild(child)));
    await answers;
    await Promise.all(
      [callsUrl, answersUrl].map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl })).catch(() => undefined)),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await relayReady(
      relay.child,
      children.map(({ child }) => child),
      waiter.failure,
    );
    for (let i = 0; i < warmUpCalls; i++) await roundTrip();
  } catch (error) {
    await close();
    throw error;
  }
  return { roundTrip, close };
}
