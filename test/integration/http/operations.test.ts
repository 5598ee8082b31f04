import { randomUUID } from 'node:crypto';
import {
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  DeleteMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { QueueAdmin } from '../../../core/infra/queue-admin';
import { platform } from '../../../lambdas/dependencies';
import { createQueues } from '../../../local/sqs-emulator';
import { emulatorEndpoints, startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The operators' routes against DynamoDB Local and the SQS emulator: queues with counts and
 * ages, the redrive (nothing lost, nothing received from a source queue), the warm pools, the
 * history, and the local-only log tail's absence outside the local cloud.
 */
let api: TestApi;
let sqs: SQSClient;
let urls: Record<string, string>;
let admin: string;

beforeAll(async () => {
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  urls = await createQueues(sqs, `rk-ops-${randomUUID().slice(0, 8)}`);
  api = await startTestApi({ QUEUE_URL_CONTROLLER_REQUESTS: urls.controllerRequests! });
  admin = await api.platform.token('ops', ['admin']);
});
afterAll(async () => {
  await api.close();
  sqs.destroy();
});

const deadLetterUrl = () => urls.controllerRequestsDeadLetter!;

async function deadLetter(body: string, group: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: deadLetterUrl(),
      MessageBody: body,
      MessageGroupId: group,
      MessageDeduplicationId: randomUUID(),
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'joined' } },
    }),
  );
}

async function countsOf(url: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible),
  };
}

describe('queues', () => {
  it('lists counts and the dead-letter queue’s oldest age, never receiving from the source queue', async () => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: urls.controllerRequests,
        MessageBody: 'waiting',
        MessageGroupId: 'room-w',
        MessageDeduplicationId: randomUUID(),
      }),
    );
    await deadLetter('dead-1', 'room-a');
    const { status, body } = await api.call('GET', '/v1/admin/queues', { token: admin });
    expect(status).toBe(200);
    const [queue] = body.queues;
    expect(queue).toMatchObject({
      id: 'controllerRequests',
      fifo: true,
      visible: 1,
      inFlight: 0,
      oldestAgeS: null,
      deadLetter: { visible: 1, inFlight: 0 },
    });
    expect(queue.name).toMatch(/controller-requests\.fifo$/);
    expect(queue.deadLetter.oldestAgeS).toEqual(expect.any(Number));
    // The peek deleted nothing (it leaves the message visible at once; the emulator counts it
    // in flight until its next receive), and the source message was received by nobody.
    const peeked = await countsOf(deadLetterUrl());
    expect(peeked.visible + peeked.inFlight).toBe(1);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: urls.controllerRequests,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    expect(Messages.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['waiting', '1']]);
    await drain(urls.controllerRequests!, Messages);
  });

  it('moves dead letters back with their group and attributes, up to max, and deletes each only once sent', async () => {
    await deadLetter('dead-2', 'room-a');
    await deadLetter('dead-3', 'room-b');
    const first = await api.call('POST', '/v1/admin/queues/controllerRequests/redrive', {
      token: admin,
      body: { max: 2 },
    });
    expect(first).toMatchObject({ status: 200, body: { moved: 2, remaining: 1 } });
    const second = await api.call('POST', '/v1/admin/queues/controllerRequests/redrive', { token: admin, body: {} });
    expect(second).toMatchObject({ status: 200, body: { moved: 1, remaining: 0 } });
    const back = await receiveAll(urls.controllerRequests!);
    expect(
      back.map((m) => [m.Body, m.Attributes?.MessageGroupId, m.MessageAttributes?.kind?.StringValue]).sort(),
    ).toEqual([
      ['dead-1', 'room-a', 'joined'],
      ['dead-2', 'room-a', 'joined'],
      ['dead-3', 'room-b', 'joined'],
    ]);
    expect(await countsOf(deadLetterUrl())).toEqual({ visible: 0, inFlight: 0 });
  });

  it('moves back a message dead-lettered within five minutes of its send, which its original deduplication id would lose', async () => {
    const dedup = randomUUID();
    const message = { MessageBody: 'recent', MessageGroupId: 'room-d', MessageDeduplicationId: dedup };
    await sqs.send(new SendMessageCommand({ QueueUrl: urls.controllerRequests, ...message }));
    // Its deliveries failed: it left the source queue for the dead-letter queue, its ids kept.
    await drain(urls.controllerRequests!, await receiveAll(urls.controllerRequests!));
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterUrl(), ...message }));
    const redrive = await api.call('POST', '/v1/admin/queues/controllerRequests/redrive', { token: admin, body: {} });
    expect(redrive.body).toEqual({ moved: 1, remaining: 0 });
    expect((await receiveAll(urls.controllerRequests!)).map((m) => m.Body)).toEqual(['recent']);
  });

  it('answers 404 for a queue it does not have', async () => {
    const { status, body } = await api.call('POST', '/v1/admin/queues/nope/redrive', { token: admin, body: {} });
    expect(status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
  });

  it('loses nothing when the send back fails: the dead letter stays in its queue', async () => {
    const own: Record<string, string> = await createQueues(sqs, `rk-gone-${randomUUID().slice(0, 8)}`);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: own.controllerRequestsDeadLetter,
        MessageBody: 'kept',
        MessageGroupId: 'room-c',
        MessageDeduplicationId: randomUUID(),
      }),
    );
    // The source queue is gone: every send back fails.
    await sqs.send(new DeleteQueueCommand({ QueueUrl: own.controllerRequests }));
    const redrive = new QueueAdmin({
      sqs,
      queueUrls: { controllerRequests: own.controllerRequests },
      now: () => new Date(),
    });
    await expect(redrive.redrive('controllerRequests', 10)).rejects.toThrow();
    const left = await countsOf(own.controllerRequestsDeadLetter!);
    expect(left.visible + left.inFlight).toBe(1);
  });
});

async function receiveAll(url: string) {
  const found = [];
  for (let i = 0; i < 5; i++) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId'],
        VisibilityTimeout: 30,
      }),
    );
    if (Messages.length === 0) break;
    found.push(...Messages);
    // Deleted as read: a FIFO group's next message is held back while one of it is in flight.
    await drain(url, Messages);
  }
  return found;
}

async function drain(url: string, messages: { ReceiptHandle?: string }[]) {
  for (const m of messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
}

describe('warm pools, history and the log tail', () => {
  it('shows each pooled configuration’s regions with their target and standby servers', async () => {
    const { pool } = platform();
    await pool.register('arena', '1.0.0', 2);
    await pool.addStarting({ gameId: 'arena', version: '1.0.0', region: 'local' }, 'standby-1', new Date());
    await pool.markReady({ gameId: 'arena', version: '1.0.0', region: 'local' }, 'standby-1');
    const { status, body } = await api.call('GET', '/v1/admin/pool', { token: admin });
    expect(status).toBe(200);
    expect(body.pools).toEqual([
      {
        gameId: 'arena',
        version: '1.0.0',
        regions: [
          { region: 'local', target: 2, servers: [{ roomId: 'standby-1', state: 'ready', since: expect.any(String) }] },
        ],
      },
    ]);
  });

  it('pages the history newest first and refuses a forged token', async () => {
    const at = (s: number) => new Date(Date.now() - s * 1000).toISOString();
    const room = { gameId: 'arena', version: '1.0.0', region: 'local' };
    await platform().history.record([
      { ...room, roomId: 'hist-1', at: at(3), changeNumber: 1, event: 'spawning' },
      { ...room, roomId: 'hist-1', at: at(2), changeNumber: 2, event: 'ready' },
      { ...room, roomId: 'hist-1', at: at(1), changeNumber: 3, event: 'failed', reason: 'crashed' },
    ]);
    const first = await api.call('GET', '/v1/admin/history?roomId=hist-1&limit=2', { token: admin });
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: { event: string }) => e.event)).toEqual(['failed', 'ready']);
    const next = await api.call('GET', `/v1/admin/history?roomId=hist-1&limit=2&nextToken=${first.body.nextToken}`, {
      token: admin,
    });
    expect(next.body.events.map((e: { event: string }) => e.event)).toEqual(['spawning']);
    const forged = await api.call('GET', '/v1/admin/history?nextToken=abc', { token: admin });
    expect(forged.status).toBe(400);
  });

  it('has no log tail outside the local cloud, and every operator route wants an admin', async () => {
    expect((await api.call('GET', '/v1/dev/logs', { token: admin })).status).toBe(404);
    const player = await api.platform.token('player');
    for (const path of ['/v1/admin/pool', '/v1/admin/queues', '/v1/admin/history', '/v1/dev/logs']) {
      expect((await api.call('GET', path, { token: player })).status).toBe(403);
    }
  });
});
