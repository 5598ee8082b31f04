import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { childLogger } from '../core/infra/logger';
import { defaultConsumerTimeoutS } from '../core/infra/queues';
import { lambdaContext } from './lambda-context';

export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsPollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn?: string;
  readonly functionName: string;
  readonly handler: SqsBatchHandler;
  readonly batchSize: number;
  /** Concurrent receive loops, like an event source mapping's concurrent invocations. */
  readonly concurrency?: number;
  readonly waitTimeS?: number;
  readonly region?: string;
  /**
   * The consumer function's timeout, as deployed: the handler's context counts down from it,
   * and an invocation still running then counts as failed (Lambda ends it), so none of its
   * batch is deleted. @default defaultConsumerTimeoutS
   */
  readonly timeoutMs?: number;
}

export interface SqsPoller {
  readonly running: boolean;
  stop(): Promise<void>;
}

const log = childLogger('sqs-poller');

/**
 * No client-side timer on a receive: the emulator it polls runs beside it, in a child of this
 * process that is stopped and resumed with it (`npm start`), and ends every long poll itself
 * after `WaitTimeSeconds`. A client timer cannot tell a slow emulator from a stopped process:
 * when the whole process is stopped (SIGSTOP, a suspended laptop) for longer than the timer,
 * both sides' timers are overdue at the resume and fire before any I/O is read. The emulator's fire first (shorter), and it serves the waiting
 * receive; then the client's abandons it, response unread. The messages it took stay invisible
 * for the visibility timeout (60 s) and their FIFO group with them: a live room's heartbeats
 * went unapplied for a minute after a stall, and the room refused joins as silent. 0 = none.
 */
const receiveRequestTimeoutMs = 0;

function toLambdaAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    result[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return result;
}

function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * Which messages of a batch to delete, as Lambda's event source mapping decides it: all on
 * success, none if the handler threw or named a message that was not in the batch, else
 * all but the reported failures (they come back after the visibility timeout, and move to
 * the dead-letter queue after `maxReceiveCount` receives).
 */
export function messagesToDelete(batch: readonly Message[], outcome: SQSBatchResponse | void | Error): Message[] {
  if (outcome instanceof Error) return [];
  const failed = new Set((outcome?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  const ids = new Set(batch.map((m) => m.MessageId));
  for (const id of failed) if (!ids.has(id)) return [];
  return batch.filter((m) => !failed.has(m.MessageId ?? ''));
}

/** Feeds one queue to one handler the way a Lambda SQS event source mapping does. */
export function startSqsPoller(options: SqsPollerOptions): SqsPoller {
  const abort = new AbortController();
  const region = options.region ?? 'us-east-1';
  const queueArn = options.queueArn ?? options.queueUrl;
  let running = true;

  async function pollOnce(): Promise<void> {
    const { Messages = [] } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize,
        WaitTimeSeconds: options.waitTimeS ?? 5,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal, requestTimeout: receiveRequestTimeoutMs },
    );
    if (Messages.length === 0) return;
    const event: SQSEvent = { Records: Messages.map((m) => toSqsRecord(m, queueArn, region)) };
    let outcome: SQSBatchResponse | void | Error;
    const timeoutMs = options.timeoutMs ?? defaultConsumerTimeoutS * 1000;
    let timer: NodeJS.Timeout | undefined;
    try {
      // Lambda ends an invocation at its timeout and keeps none of its result. Here the handler
      // runs on (it cannot be frozen), but its batch is treated as Lambda treats it.
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)), timeoutMs);
      });
      outcome = await Promise.race([options.handler(event, lambdaContext(options.functionName, timeoutMs)), timedOut]);
    } catch (error) {
      log.error('queue handler failed; the batch will be retried', {
        functionName: options.functionName,
        error: error as Error,
      });
      outcome = error as Error;
    } finally {
      clearTimeout(timer);
    }
    const done = messagesToDelete(Messages, outcome);
    if (done.length === 0) return;
    await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        await pollOnce();
      } catch (error) {
        if (abort.signal.aborted) break;
        log.warn('receive failed; retrying', { functionName: options.functionName, error: error as Error });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency ?? 2 }, () => loop());
  return {
    get running() {
      return running;
    },
    async stop() {
      running = false;
      abort.abort();
      await Promise.allSettled(loops);
    },
  };
}
