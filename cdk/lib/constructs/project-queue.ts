import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { qualifiedQueueName, type QueueDefinition, type QueueId } from '../../../core/infra/queues';

export interface ProjectQueueProps {
  /** One entry of `queueDefinitions` (core/infra/queues.ts): the single source of truth. */
  readonly definition: QueueDefinition & { readonly id: QueueId };
  /** Deployment prefix for queue names (`roomkeeper-prod` → `roomkeeper-prod-controller-requests.fifo`). */
  readonly namePrefix: string;
}

/** How long a dead letter waits for an operator (the SQS maximum). */
const deadLetterRetention = Duration.days(14);

/**
 * One queue of `queueDefinitions` with its dead-letter queue and redrive policy, the same
 * attributes the local cloud gives it in the emulator (local/sqs-emulator.ts), plus what
 * only AWS has: TLS-only access and SQS-managed encryption at rest.
 */
export class ProjectQueue extends Construct {
  readonly definition: QueueDefinition & { readonly id: QueueId };
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ProjectQueueProps) {
    super(scope, id);
    const { definition, namePrefix } = props;
    this.definition = definition;

    // FIFO queues: deduplication and throughput per message group (the room id), so one busy
    // room cannot slow down the others. Senders pass a deduplication id, as in the emulator.
    const fifo: Partial<sqs.QueueProps> = definition.fifo
      ? {
          fifo: true,
          contentBasedDeduplication: false,
          deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
          fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        }
      : {};
    const common: Partial<sqs.QueueProps> = {
      enforceSSL: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
    };

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetter', {
      ...common,
      ...(definition.fifo ? { fifo: true, contentBasedDeduplication: false } : {}),
      queueName: qualifiedQueueName(namePrefix, definition.deadLetter.name),
      retentionPeriod: deadLetterRetention,
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      ...common,
      ...fifo,
      queueName: qualifiedQueueName(namePrefix, definition.name),
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutS),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.deadLetter.maxReceiveCount },
    });
  }
}
