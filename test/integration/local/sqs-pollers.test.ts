import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { createSqsClient } from '../../../core/infra/aws-clients';
import type { QueueDefinition } from '../../../core/infra/queues';
import { createQueues } from '../../../local/sqs-emulator';
import { startSqsPoller, type SqsBatchHandler, type SqsPoller } from '../../../local/sqs-pollers';
import { emulatorEndpoints } from '../../helpers/platform';

const definition: QueueDefinition = {
  id: 'work',
  name: 'work.fifo',
  fifo: true,
  visibilityTimeoutS: 1,
  deadLetter: { name: 'work-dlq.fifo', maxReceiveCount: 2 },
  batchSize: 10,
  consumer: 'test/integration/local/sqs-pollers.test.ts',
};

let sqs: SQSClient;
let pollers: SqsPoller[] = [];

beforeAll(() => {
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
});
afterEach(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  pollers = [];
});
afterAll(() => sqs.destroy());

async function freshQueues(): Promise<{ work: string; dlq: string }> {
  const urls = (await createQueues(sqs, `t-${randomUUID().slice(0, 8)}`, { work: definition })) as Record<
    string,
    string
  >;
  return { work: urls.work ?? '', dlq: urls.workDeadLetter ?? '' };
}

async function send(queueUrl: string, bodies: string[]): Promise<void> {
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, i) => ({
        Id: String(i),
        MessageBody: body,
        MessageGroupId: body,
        MessageDeduplicationId: randomUUID(),
      })),
    }),
  );
}

async function visibleAndInFlight(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function poll(queueUrl: string, handler: SqsBatchHandler): void {
  pollers.push(startSqsPoller({ sqs, queueUrl, functionName: 'test', handler, batchSize: 10, waitTimeS: 1 }));
}

describe('startSqsPoller', () => {
  it('hands messages to the handler as an SQS event and deletes them on success', async () => {
    const { work } = await freshQueues();
    const seen: string[] = [];
    poll(work, async (event: SQSEvent) => {
      for (const record of event.Records) {
        expect(record.eventSource).toBe('aws:sqs');
        expect(record.attributes.MessageGroupId).toBe(record.body);
        seen.push(record.body);
      }
    });
    await send(work, ['a', 'b', 'c']);
    await eventually(
      async () => seen.length,
      (n) => n === 3,
    );
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect(
      await eventually(
        () => visibleAndInFlight(work),
        (n) => n === 0,
      ),
    ).toBe(0);
  });

  it('retries only the reported failures and moves them to the dead-letter queue after maxReceiveCount', async () => {
    const { work, dlq } = await freshQueues();
    const attempts = new Map<string, number>();
    poll(work, async (event) => {
      for (const record of event.Records) attempts.set(record.body, (attempts.get(record.body) ?? 0) + 1);
      return {
        batchItemFailures: event.Records.filter((r) => r.body === 'poison').map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    });
    await send(work, ['good', 'poison']);
    expect(
      await eventually(
        () => visibleAndInFlight(dlq),
        (n) => n === 1,
      ),
    ).toBe(1);
    expect(attempts.get('good')).toBe(1);
    expect(attempts.get('poison')).toBe(definition.deadLetter.maxReceiveCount);
    expect(await visibleAndInFlight(work)).toBe(0);
  });

  it('retries the whole batch when the handler throws', async () => {
    const { work } = await freshQueues();
    let calls = 0;
    poll(work, async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
    });
    await send(work, ['x']);
    await eventually(
      async () => calls,
      (n) => n >= 2,
    );
    expect(calls).toBe(2);
    expect(
      await eventually(
        () => visibleAndInFlight(work),
        (n) => n === 0,
      ),
    ).toBe(0);
  });
});
