import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

describe('startSqsPoller at the consumer timeout', () => {
  it('gives the handler the deployed timeout, and keeps none of a batch still running then, as Lambda ends it', async () => {
    const { work } = await freshQueues();
    const remaining: number[] = [];
    let calls = 0;
    pollers.push(
      startSqsPoller({
        sqs,
        queueUrl: work,
        functionName: 'test',
        batchSize: 10,
        waitTimeS: 1,
        timeoutMs: 500,
        handler: async (_event, context) => {
          calls += 1;
          remaining.push(context.getRemainingTimeInMillis());
          // The first invocation overruns its timeout, though not the visibility timeout (1 s):
          // its success comes too late to count, so the message is not deleted and comes back.
          if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 800));
        },
      }),
    );
    await send(work, ['x']);
    await eventually(
      async () => calls,
      (n) => n >= 2,
    );
    expect(calls).toBe(2);
    expect(remaining.every((ms) => ms <= 500)).toBe(true);
    expect(
      await eventually(
        () => visibleAndInFlight(work),
        (n) => n === 0,
      ),
    ).toBe(0);
  });
});

describe('a stop of the process that runs both the emulator and the poller (npm start)', () => {
  const fixture = join(__dirname, '../../fixtures/local/stoppable-poller.ts');
  let child: ChildProcess | undefined;
  // The fixture leads its own process group, which holds the emulator's process too: npm start
  // is stopped as a group (Ctrl-Z, a suspended laptop), emulator and pollers together.
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child?.pid) process.kill(-child.pid, signal);
  };
  afterEach(() => {
    if (child?.exitCode !== null) return;
    signalGroup('SIGCONT');
    signalGroup('SIGKILL');
  });

  it('loses no receive: the message in flight at the stop comes back once, and its group goes on', async () => {
    // Stopped longer than the fixture's client timeout (3 s) and visibility timeout (2 s), as
    // a minute's stop of `npm start` outlasts its 25 s and 60 s.
    child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      cwd: join(__dirname, '../../..'),
      env: { ...process.env, CLIENT_TIMEOUT_MS: '3000', VISIBILITY_S: '2', HANDLE_MS: '1500' },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const events: Array<Record<string, string>> = [];
    if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => events.push(JSON.parse(line)));
    const next = async (accept: (e: Record<string, string>) => boolean) => {
      const found = await eventually(
        async () => events.find(accept),
        (e) => e !== undefined,
      );
      if (!found) throw new Error(`The fixture never printed it; it printed ${JSON.stringify(events)}.`);
      return found;
    };
    const ready = await next((e) => e.event === 'ready');
    const client = createSqsClient({ region: 'us-east-1', sqsEndpoint: ready.endpoint });
    try {
      // One FIFO group, as one room's messages: `after` waits behind `slow`.
      await client.send(
        new SendMessageBatchCommand({
          QueueUrl: ready.queueUrl,
          Entries: ['slow', 'after'].map((body) => ({
            Id: body,
            MessageBody: body,
            MessageGroupId: 'room',
            MessageDeduplicationId: randomUUID(),
          })),
        }),
      );
    } finally {
      client.destroy();
    }
    // Stopped while the handler holds `slow`, and the other loop's long poll waits.
    await next((e) => e.event === 'handling');
    signalGroup('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    signalGroup('SIGCONT');
    await next((e) => e.event === 'handled' && e.body === 'after');
    // `slow` outlived its visibility timeout while stopped, so it is delivered again: once. A
    // receive served to a poll that then gave up would show as a third receive, a visibility
    // timeout later, with the whole group held behind it.
    expect(events.filter((e) => e.event === 'handled').map((e) => [e.body, e.receiveCount])).toEqual([
      ['slow', '1'],
      ['slow', '2'],
      ['after', '1'],
    ]);
  }, 30_000);
});
