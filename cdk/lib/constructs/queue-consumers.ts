import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { defaultConsumerTimeoutS, type QueueId } from '../../../core/infra/queues';
import { checkReservedConcurrency } from './account-limits';
import { bindCostBounds } from './cost-bounds';
import { bindNeeds, type PlatformResources } from './platform-resources';
import { ProjectFunction } from './project-function';
import type { ProjectQueue } from './project-queue';
import { StackPart } from './stack-part';

export interface QueueConsumersOptions {
  /**
   * Per queue, the most invocations its consumer's event source mapping runs at once (2–1,000).
   * @default the queue definition's `maxConcurrency`
   */
  readonly maxConcurrency?: Partial<Record<QueueId, number>>;
}

/**
 * One consumer per queue (the `consumer` of its definition), fed by an event source mapping;
 * it replies to the per-task reply queues the sidecars own. Consumers are capped by their
 * mapping, never by reserved concurrency, and synthesis fails if the stack reserves more than
 * the account could give (`-c lambdaConcurrencyQuota`, cdk/lib/constructs/account-limits.ts).
 */
export class QueueConsumers extends StackPart {
  readonly consumers: Readonly<Record<QueueId, ProjectFunction>>;

  constructor(scope: Construct, id: string, platform: PlatformResources, options: QueueConsumersOptions = {}) {
    super(scope, id);
    checkReservedConcurrency(this);
    const consumers = {} as Record<QueueId, ProjectFunction>;
    for (const [queueId, queue] of Object.entries(platform.queues) as [QueueId, ProjectQueue][]) {
      consumers[queueId] = new ProjectFunction(this, `Consumer-${queueId}`, {
        entry: queue.definition.consumer,
        description: `Consumes ${queue.queue.node.path}`,
        timeout: Duration.seconds(queue.definition.consumerTimeoutS ?? defaultConsumerTimeoutS),
        logRetention: platform.logRetention,
      })
        .bindTable(platform.table, 'readWrite')
        .bindQueue(queue, 'consume', { maxConcurrency: options.maxConcurrency?.[queueId] })
        .bindReplyQueues(platform.replyQueuePrefix)
        .bindAuth(platform.auth);
      bindNeeds(consumers[queueId], queue.definition.needs ?? [], platform);
    }
    // `inited` makes a room ready only with the address players reach: the task's public IPv4.
    consumers.controllerRequests.bindServerLookup(platform.fleet);
    for (const fn of Object.values(consumers)) bindCostBounds(fn, platform.costBounds);
    this.consumers = consumers;
  }
}
