/**
 * The relay of the raw "round trip to a game" (test/bench/raw-parts.ts `startGameRoundTrips`):
 * a sidecar's hand-over path with nothing of Roomkeeper's logic in it, a separate process:
 *
 *   node --import tsx test/bench/game-round-trip/relay.ts <sqs endpoint> <region> <calls queue URL> <answers queue URL> <ipc://…>
 *
 * It binds a ZeroMQ PAIR socket (as a sidecar does for its game), waits for the game's hello,
 * prints `ready`, then long-polls the calls queue as a sidecar polls its reply queue (20 s,
 * up to 10 messages). For each message: one JSON-RPC request to the game, its answer sent to
 * the answers queue, then the message deleted. The SQS client is the platform's own factory,
 * so timeouts, keep-alive pool and retries are those of the sidecar. It exits when its stdin
 * closes: with the bench.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { Pair } from 'zeromq';
import { createSqsClient } from '../../../core/infra/aws-clients';

const [sqsEndpoint, region, callsQueueUrl, answersQueueUrl, gameEndpoint] = process.argv.slice(2);
if (!sqsEndpoint || !region || !callsQueueUrl || !answersQueueUrl || !gameEndpoint)
  throw new Error('usage: relay.ts <sqs endpoint> <region> <calls queue URL> <answers queue URL> <ipc://endpoint>');

process.stdin.on('close', () => process.exit(0));
process.stdin.resume();

interface RelayOptions {
  readonly sqsEndpoint: string;
  readonly region: string;
  readonly callsQueueUrl: string;
  readonly answersQueueUrl: string;
  readonly gameEndpoint: string;
}

async function relay({
  sqsEndpoint,
  region,
  callsQueueUrl,
  answersQueueUrl,
  gameEndpoint,
}: RelayOptions): Promise<never> {
  const sqs = createSqsClient({ region, sqsEndpoint });
  const game = new Pair({ linger: 0 });
  await game.bind(gameEndpoint);
  await game.receive(); // the game's hello: it is connected
  process.stdout.write('ready\n');

  let rpcId = 0;
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: callsQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20 }),
    );
    for (const message of Messages) {
      const call = JSON.parse(message.Body ?? '{}') as { id?: unknown; params?: unknown };
      await game.send(JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'assign', params: call.params ?? {} }));
      const [answer] = await game.receive();
      const { result } = JSON.parse(String(answer)) as { result?: unknown };
      await sqs.send(
        new SendMessageCommand({ QueueUrl: answersQueueUrl, MessageBody: JSON.stringify({ id: call.id, result }) }),
      );
      await sqs.send(new DeleteMessageCommand({ QueueUrl: callsQueueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
}

relay({ sqsEndpoint, region, callsQueueUrl, answersQueueUrl, gameEndpoint }).catch((error: unknown) => {
  process.stderr.write(`bench relay: ${String(error)}\n`);
  process.exit(1);
});
