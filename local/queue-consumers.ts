import type { QueueId } from '../core/infra/queues';
import { handler as controllerEvents } from '../lambdas/queue/controller-events';
import type { SqsBatchHandler } from './sqs-pollers';

/**
 * The queue handler behind each queue, for the local pollers: the same functions the CDK
 * stack attaches with an SQS event source mapping.
 */
export const queueConsumers: Record<QueueId, SqsBatchHandler> = {
  controllerRequests: controllerEvents,
};
