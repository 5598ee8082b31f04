import { createHash } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { PlatformError } from '../errors';
import { ConfigInvalidError } from './config';
import { childLogger } from './logger';
import type { QueueAges } from './queue-ages';
import { siblingQueueUrl } from './queue-urls';
import { qualifiedQueueName, queueDefinitions, queueUrlVariable, type QueueDefinition, type QueueId } from './queues';

const log = childLogger('queue-admin');

const ageSchema = z
  .number()
  .nullable()
  .describe(
    'Seconds since the oldest message was sent, or null when unknown (no CloudWatch in the local cloud, no datapoint yet).',
  );

export const queueViewSchema = z
  .strictObject({
    id: z.string().describe('The queue id of the redrive route.'),
    name: z.string(),
    fifo: z.boolean(),
    visible: z.number().int().describe('Messages waiting (ApproximateNumberOfMessages).'),
    inFlight: z.number().int().describe('Received and not yet deleted (ApproximateNumberOfMessagesNotVisible).'),
    delayed: z.number().int().describe('Not yet deliverable (ApproximateNumberOfMessagesDelayed).'),
    oldestAgeS: ageSchema,
    deadLetter: z.strictObject({
      name: z.string(),
      visible: z.number().int(),
      inFlight: z.number().int(),
      oldestAgeS: ageSchema,
    }),
  })
  .meta({ id: 'QueueStatus' });
export type QueueView = z.output<typeof queueViewSchema>;

export const redriveRequestSchema = z
  .strictObject({
    max: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(100)
      .describe('The most dead-lettered messages to move back in this call.'),
  })
  .meta({ id: 'RedriveRequest' });

export const redriveResultSchema = z
  .strictObject({
    moved: z.number().int().describe('Messages sent back to the source queue and removed from its dead-letter queue.'),
    remaining: z.number().int().describe("The dead-letter queue's ApproximateNumberOfMessages afterwards."),
  })
  .meta({ id: 'RedriveResult' });
export type RedriveResult = z.output<typeof redriveResultSchema>;

class QueueNotFoundError extends PlatformError {
  override readonly name = 'QueueNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(queueId: string) {
    super(`No queue '${queueId}'; GET /v1/admin/queues lists them.`);
  }
}

export interface QueueAdminDependencies {
  readonly sqs: SQSClient;
  /** Each queue's URL in this deployment (`QUEUE_URL_*`); its dead-letter queue is its sibling. */
  readonly queueUrls: Readonly<Partial<Record<QueueId, string>>>;
  /** Deployed: CloudWatch's oldest-message ages. Absent (the local cloud): source queues' ages are unknown. */
  readonly ages?: QueueAges;
  readonly now: () => Date;
}

/** How long a message a redrive received stays hidden: a redrive cut short hands it back this soon. */
const redriveVisibilityS = 30;
/** ReceiveMessage's and the batch APIs' most messages a call. */
const sqsBatch = 10;

const counts = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

/**
 * The operators' view of the platform's queues (core/infra/queues.ts) and their dead-letter
 * queues: counts, oldest-message ages, and the redrive. It never receives from a source queue:
 * a receive there counts toward the message's `maxReceiveCount` and could dead-letter it.
 * A dead-letter queue has no redrive policy of its own, so receiving from it harms nothing.
 */
export class QueueAdmin {
  constructor(private readonly deps: QueueAdminDependencies) {}

  async list(): Promise<QueueView[]> {
    const now = this.deps.now();
    const queues = (Object.keys(queueDefinitions) as QueueId[]).map((id) => this.located(id));
    const ages = await this.cloudWatchAges(
      queues.flatMap((q) => [q.name, q.deadLetterName]),
      now,
    );
    return Promise.all(
      queues.map(async (q): Promise<QueueView> => {
        const [source, deadLetter] = await Promise.all([this.counts(q.url), this.counts(q.deadLetterUrl)]);
        const deadLetterAge = ages.get(q.deadLetterName) ?? (await this.peekOldestAgeS(q.deadLetterUrl, now));
        return {
          id: q.id,
          name: q.name,
          fifo: q.definition.fifo,
          ...source,
          oldestAgeS: ages.get(q.name) ?? null,
          deadLetter: {
            name: q.deadLetterName,
            visible: deadLetter.visible,
            inFlight: deadLetter.inFlight,
            oldestAgeS: deadLetterAge,
          },
        };
      }),
    );
  }

  /**
   * Moves up to `max` dead-lettered messages back to their source queue, ten at a time:
   * received from the dead-letter queue (body, attributes, FIFO message group), sent to the
   * source, and deleted from the dead-letter queue only once their send succeeded. A message
   * is never lost: a redrive cut short between send and delete leaves it in the dead-letter
   * queue as well, and the next redrive sends it again under the same deduplication id, which
   * SQS drops within its five-minute deduplication interval; later, it is a duplicate, which
   * the consumers (idempotent: every SQS consumer here is) apply once.
   */
  async redrive(queueId: string, max: number): Promise<RedriveResult> {
    if (!Object.hasOwn(queueDefinitions, queueId)) throw new QueueNotFoundError(queueId);
    const q = this.located(queueId as QueueId);
    let moved = 0;
    while (moved < max) {
      const { Messages = [] } = await this.deps.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: q.deadLetterUrl,
          MaxNumberOfMessages: Math.min(sqsBatch, max - moved),
          WaitTimeSeconds: 0,
          VisibilityTimeout: redriveVisibilityS,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) break;
      const sent = await this.sendBack(q, Messages);
      moved += await this.deleteSent(q.deadLetterUrl, sent);
      if (sent.length < Messages.length) break;
    }
    const remaining = (await this.counts(q.deadLetterUrl)).visible;
    log.info('dead-lettered messages moved back', { queueId, moved, remaining });
    return { moved, remaining };
  }

  /** Sends the messages to the source queue in order; the ones SQS accepted, in order. */
  private async sendBack(q: LocatedQueue, messages: readonly Message[]): Promise<Message[]> {
    const { Successful = [], Failed = [] } = await this.deps.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: messages.map((message, i) => ({
          Id: String(i),
          MessageBody: message.Body ?? '',
          ...(message.MessageAttributes ? { MessageAttributes: message.MessageAttributes } : {}),
          ...(q.definition.fifo
            ? {
                MessageGroupId: message.Attributes?.MessageGroupId,
                // Not the original's: SQS would drop a send under the original id within five
                // minutes of the original send, and the message would then be deleted here and lost.
                MessageDeduplicationId: `redrive-${createHash('sha256')
                  .update(message.MessageId ?? '')
                  .digest('hex')}`,
              }
            : {}),
        })),
      }),
    );
    if (Failed.length > 0) log.warn('some dead-lettered messages could not be sent back', { failed: Failed });
    const ok = new Set(Successful.map((s) => s.Id));
    return messages.filter((_m, i) => ok.has(String(i)));
  }

  private async deleteSent(url: string, sent: readonly Message[]): Promise<number> {
    if (sent.length === 0) return 0;
    const { Successful = [] } = await this.deps.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: sent.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    return Successful.length;
  }

  private located(id: QueueId): LocatedQueue {
    const definition: QueueDefinition = queueDefinitions[id];
    const url = this.deps.queueUrls[id];
    if (!url) throw new ConfigInvalidError([queueUrlVariable(id)], 'needed to read the queues');
    const name = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    // `<prefix>-<name>`: the dead-letter queue is the same prefix's.
    const prefix = name.slice(0, name.length - definition.name.length - 1);
    const deadLetterName = qualifiedQueueName(prefix, definition.deadLetter.name);
    return { id, definition, url, name, deadLetterName, deadLetterUrl: siblingQueueUrl(url, deadLetterName) };
  }

  private async counts(url: string): Promise<{ visible: number; inFlight: number; delayed: number }> {
    const { Attributes = {} } = await this.deps.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...counts] }),
    );
    const count = (name: (typeof counts)[number]) => Number(Attributes[name] ?? 0) || 0;
    return {
      visible: count('ApproximateNumberOfMessages'),
      inFlight: count('ApproximateNumberOfMessagesNotVisible'),
      delayed: count('ApproximateNumberOfMessagesDelayed'),
    };
  }

  /** CloudWatch's ages where deployed; none when it is absent or fails (the listing still answers). */
  private async cloudWatchAges(names: readonly string[], now: Date): Promise<ReadonlyMap<string, number>> {
    if (!this.deps.ages) return new Map();
    try {
      return await this.deps.ages(names, now);
    } catch (error) {
      log.warn('queue ages could not be read from CloudWatch', { error: error as Error });
      return new Map();
    }
  }

  /**
   * The oldest of the first messages a receive returns from a dead-letter queue (up to ten;
   * on a large queue a lower bound), by their `SentTimestamp`; left visible at once
   * (`VisibilityTimeout: 0`). Null for an empty queue.
   */
  private async peekOldestAgeS(deadLetterUrl: string, now: Date): Promise<number | null> {
    const { Messages = [] } = await this.deps.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: deadLetterUrl,
        MaxNumberOfMessages: sqsBatch,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 0,
        MessageSystemAttributeNames: ['SentTimestamp'],
      }),
    );
    const sent = Messages.map((m) => Number(m.Attributes?.SentTimestamp)).filter(Number.isFinite);
    if (sent.length === 0) return null;
    return Math.max(0, Math.round((now.getTime() - Math.min(...sent)) / 1000));
  }
}

interface LocatedQueue {
  readonly id: QueueId;
  readonly definition: QueueDefinition;
  readonly url: string;
  readonly name: string;
  readonly deadLetterName: string;
  readonly deadLetterUrl: string;
}
