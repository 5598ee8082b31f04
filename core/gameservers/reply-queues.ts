import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { roomOfQueueName, type QueueOwner } from '../protocol/queue-names';

/**
 * A sidecar's reply queue (`<prefix><roomId>`, a replacement server's `…-e<n>`) or assign
 * queue (`…-assign`), as the sweeper lists it: the room and the epoch of the server that made
 * it come from the name (core/protocol/queue-names.ts), so listing costs no call per queue.
 */
export interface ReplyQueue extends QueueOwner {
  readonly url: string;
}

/** The reply queues left in the account, their age, and deleting one: what the orphan sweep needs of SQS. */
export interface ReplyQueues {
  list(): Promise<ReplyQueue[]>;
  /** When the queue was created; undefined once it is gone (its sidecar deleted it meanwhile). */
  createdAt(url: string): Promise<Date | undefined>;
  delete(url: string): Promise<void>;
}

/**
 * Reply queues on SQS: ListQueues by the deployment's prefix (1,000 a page), a queue's
 * CreatedTimestamp (one GetQueueAttributes, asked only for queues whose room is not live),
 * DeleteQueue. A sidecar deletes its own queue at exit; these are the queues of sidecars that
 * never got there (killed task, lost process).
 */
export class SqsReplyQueues implements ReplyQueues {
  constructor(
    private readonly sqs: SQSClient,
    private readonly prefix: string,
  ) {}

  async list(): Promise<ReplyQueue[]> {
    const queues: ReplyQueue[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.sqs.send(
        new ListQueuesCommand({ QueueNamePrefix: this.prefix, MaxResults: 1000, NextToken: nextToken }),
      );
      for (const url of page.QueueUrls ?? []) {
        // ListQueues matches the prefix; the name check keeps a look-alike URL out.
        const owner = roomOfQueueName(this.prefix, url.slice(url.lastIndexOf('/') + 1));
        if (owner) queues.push({ url, ...owner });
      }
      nextToken = page.NextToken;
    } while (nextToken);
    return queues;
  }

  async delete(url: string): Promise<void> {
    try {
      await this.sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    } catch (error) {
      // Its sidecar deleted it first: what we wanted.
      if (!(error instanceof QueueDoesNotExist)) throw error;
    }
  }

  async createdAt(url: string): Promise<Date | undefined> {
    try {
      const { Attributes } = await this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['CreatedTimestamp'] }),
      );
      const seconds = Number(Attributes?.CreatedTimestamp);
      return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : undefined;
    } catch (error) {
      if (error instanceof QueueDoesNotExist) return undefined;
      throw error;
    }
  }
}
