import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { roomOfQueueName } from '../protocol/queue-names';

/** A sidecar's reply queue (`<prefix><roomId>`) or assign queue (`…-assign`), as the sweeper sees it. */
export interface ReplyQueue {
  readonly url: string;
  readonly roomId: string;
  /** Absent when the queue vanished between the listing and the read. */
  readonly createdAt?: Date;
}

/** The reply queues left in the account, and deleting one: what the orphan sweep needs of SQS. */
export interface ReplyQueues {
  list(): Promise<ReplyQueue[]>;
  delete(url: string): Promise<void>;
}

/**
 * Reply queues on SQS: ListQueues by the deployment's prefix (1,000 a page), each queue's
 * CreatedTimestamp, DeleteQueue. A sidecar deletes its own queue at exit; these are the
 * queues of sidecars that never got there (killed task, lost process).
 */
export class SqsReplyQueues implements ReplyQueues {
  constructor(
    private readonly sqs: SQSClient,
    private readonly prefix: string,
  ) {}

  async list(): Promise<ReplyQueue[]> {
    const urls: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.sqs.send(
        new ListQueuesCommand({ QueueNamePrefix: this.prefix, MaxResults: 1000, NextToken: nextToken }),
      );
      urls.push(...(page.QueueUrls ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
    const queues: ReplyQueue[] = [];
    for (const url of urls) {
      const name = url.slice(url.lastIndexOf('/') + 1);
      // ListQueues matches the prefix; the name check keeps a look-alike URL out.
      const roomId = roomOfQueueName(this.prefix, name);
      if (!roomId) continue;
      queues.push({ url, roomId, ...(await this.createdAt(url)) });
    }
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

  private async createdAt(url: string): Promise<{ createdAt?: Date }> {
    try {
      const { Attributes } = await this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['CreatedTimestamp'] }),
      );
      const seconds = Number(Attributes?.CreatedTimestamp);
      return Number.isFinite(seconds) && seconds > 0 ? { createdAt: new Date(seconds * 1000) } : {};
    } catch (error) {
      if (error instanceof QueueDoesNotExist) return {};
      throw error;
    }
  }
}
