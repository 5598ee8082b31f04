import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';

/** How many messages a queue holds that its consumer has not finished with. */
export type QueueBacklog = () => Promise<number | undefined>;

/** A hung emulator or endpoint must not hang the sweeper: past this, the backlog is unknown. */
const readTimeoutMs = 5_000;

/**
 * Waiting + in flight (received, not yet deleted) + delayed messages, from SQS's approximate
 * counters; undefined when the queue cannot be read (not configured, or SQS unreachable).
 */
export function queueBacklog(sqs: SQSClient, queueUrl: string | undefined): QueueBacklog {
  return async () => {
    if (!queueUrl) return undefined;
    try {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
        { abortSignal: AbortSignal.timeout(readTimeoutMs) },
      );
      const count = (name: QueueAttributeName) => Number(Attributes[name] ?? 0);
      const total =
        count('ApproximateNumberOfMessages') +
        count('ApproximateNumberOfMessagesNotVisible') +
        count('ApproximateNumberOfMessagesDelayed');
      return Number.isFinite(total) ? total : undefined;
    } catch {
      return undefined;
    }
  };
}
