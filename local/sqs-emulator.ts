import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { qualifiedQueueName, queueDefinitions, type QueueDefinition, type QueueId } from '../core/infra/queues';

export interface SqsEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts fauxqs (ESM-only, hence the dynamic import) on a free port. */
export async function startSqsEmulator(options: { port?: number } = {}): Promise<SqsEmulator> {
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port: options.port ?? 0, logger: false, host: '127.0.0.1' });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

function fifoAttributes(definition: { fifo: boolean }): Record<string, string> {
  return definition.fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'false' } : {};
}

async function createQueue(sqs: SQSClient, name: string, attributes: Record<string, string>): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`The SQS emulator returned no URL for queue ${name}.`);
  return QueueUrl;
}

/**
 * Creates every queue of `queueDefinitions`, each with its dead-letter queue and redrive
 * policy, exactly as the CDK stack declares them. Returns the queue URLs by id.
 */
export async function createQueues(
  sqs: SQSClient,
  prefix: string,
  definitions: Readonly<Record<string, QueueDefinition>> = queueDefinitions,
): Promise<Record<QueueId, string>> {
  const urls: Record<string, string> = {};
  for (const definition of Object.values(definitions)) {
    const dlqUrl = await createQueue(sqs, qualifiedQueueName(prefix, definition.deadLetter.name), {
      ...fifoAttributes(definition),
      MessageRetentionPeriod: String(14 * 24 * 3600),
    });
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    urls[definition.id] = await createQueue(sqs, qualifiedQueueName(prefix, definition.name), {
      ...fifoAttributes(definition),
      VisibilityTimeout: String(definition.visibilityTimeoutS),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: Attributes?.QueueArn,
        maxReceiveCount: definition.deadLetter.maxReceiveCount,
      }),
    });
    urls[`${definition.id}DeadLetter`] = dlqUrl;
  }
  return urls as Record<QueueId, string>;
}
