import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { PlatformBridge, type PlatformCommand } from '../../../containers/controller/bridge';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { childLogger } from '../../../core/infra/logger';
import { sealControllerReply } from '../../../core/gameservers/controller-channel';
import { sidecarKeys } from '../../../core/protocol/sidecar-channel';
import { emulatorEndpoints } from '../../helpers/platform';

/** Every request the bridge's SQS client starts, by operation, with when it started. */
function recordingSqsClient(): { sqs: SQSClient; started: { operation: string; at: number }[] } {
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  const started: { operation: string; at: number }[] = [];
  sqs.middlewareStack.add(
    (next, context) => (args) => {
      started.push({ operation: String(context.commandName), at: performance.now() });
      return next(args);
    },
    { step: 'initialize', name: 'recordStart' },
  );
  return { sqs, started };
}

async function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A bridge for a room of its own, its reply queue created, on a recording SQS client. */
async function startedBridge(name: string) {
  const { sqs, started } = recordingSqsClient();
  const roomId = `${name}-${randomUUID().slice(0, 8)}`;
  const keys = sidecarKeys(Buffer.alloc(32, 7), roomId);
  const bridge = new PlatformBridge({
    sqs,
    roomId,
    keys,
    requestQueueUrl: 'http://127.0.0.1:1/000000000000/unused.fifo',
    replyQueueName: `rk-test-${roomId}`,
    replyTimeoutMs: 1_000,
    log: childLogger('bridge-hold-test'),
    pollWaitS: 1,
  });
  await bridge.createReplyQueue();
  const sendCommand = (command: PlatformCommand) =>
    sqs.send(
      new SendMessageCommand({ QueueUrl: bridge.replyQueueUrl, MessageBody: sealControllerReply(keys, command) }),
    );
  return { bridge, started, sendCommand };
}

describe('PlatformBridge: a held command', () => {
  it('deletes it and polls again only once it settled', async () => {
    const { bridge, started, sendCommand } = await startedBridge('hold');
    let settle!: () => void;
    const held = new Promise<void>((resolve) => (settle = resolve));
    const received: PlatformCommand[] = [];
    try {
      bridge.consume(
        (command) => {
          received.push(command);
          return command.method === 'assign' ? held : undefined;
        },
        () => undefined,
      );
      await sendCommand({ type: 'command', commandId: 'c-1', method: 'assign', params: {} });
      await until(() => received[0], 5_000, 'command');
      const settledAt = performance.now();
      settle();

      const deleted = await until(
        () => started.find((s) => s.operation === 'DeleteMessageBatchCommand'),
        5_000,
        'delete of the batch',
      );
      expect(deleted.at).toBeGreaterThanOrEqual(settledAt);
      const polledAgain = started.filter((s) => s.operation === 'ReceiveMessageCommand' && s.at > settledAt);
      expect(polledAgain.every((s) => s.at >= deleted.at)).toBe(true);
    } finally {
      await bridge.close();
    }
  });

  it('without a held command, deletes the batch at once', async () => {
    const { bridge, started, sendCommand } = await startedBridge('nohold');
    try {
      bridge.consume(
        () => undefined,
        () => undefined,
      );
      await sendCommand({ type: 'command', commandId: 'c-2', method: 'say', params: {} });
      await until(() => started.find((s) => s.operation === 'DeleteMessageBatchCommand'), 5_000, 'delete of the batch');
    } finally {
      await bridge.close();
    }
  });
});
