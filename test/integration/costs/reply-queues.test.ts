import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
} from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { SqsReplyQueues } from '../../../core/gameservers/reply-queues';
import { sweepOrphans } from '../../../core/rooms/sweep-orphans';
import { emulatorEndpoints } from '../../helpers/platform';

/**
 * Leftover reply queues against the real SQS emulator: listed by the deployment's prefix,
 * aged by CreatedTimestamp (only those whose room is not live), deleted only when their room
 * is not live; the request shapes are recorded from the SDK's own middleware.
 */
const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
const sent: { command: string; input: Record<string, unknown> }[] = [];
sqs.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push({ command: String(context.commandName), input: { ...(args.input as Record<string, unknown>) } });
    return next(args);
  },
  { step: 'initialize', name: 'recordRequests' },
);
afterAll(() => sqs.destroy());

describe('SqsReplyQueues and the orphan sweep', () => {
  it('deletes the reply and assign queues of rooms that are not live, keeps live rooms and other queues', async () => {
    const prefix = `rk-test-${randomUUID().slice(0, 8)}-reply-`;
    const url = async (name: string) => (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? '';
    const ended = await url(`${prefix}ended`);
    const live = await url(`${prefix}live`);
    const lagging = await url(`${prefix}lagging`);
    // A standby server's assign queue belongs to its room like the reply queue.
    const endedAssign = await url(`${prefix}ended-assign`);
    const liveAssign = await url(`${prefix}live-assign`);
    const other = await url(`${prefix.slice(0, -1)}x-other`);
    const queues = new SqsReplyQueues(sqs, prefix);
    sent.length = 0;

    const listed = await queues.list();
    expect(listed.map((q) => q.roomId).sort()).toEqual(['ended', 'ended', 'lagging', 'live', 'live']);
    // Listing reads names only; a queue's age is one call, asked only of queues whose room ended.
    expect(sent.map((s) => s.command)).toEqual(['ListQueuesCommand']);
    expect((await queues.createdAt(ended))?.getTime()).toBeGreaterThan(Date.now() - 120_000);
    sent.length = 0;

    const result = await sweepOrphans(
      new Map([['live', 1]]),
      {
        spawner: { stop: async () => undefined },
        // `lagging` is live by a strong read though the index did not show it.
        rooms: { liveAmong: async (roomIds) => new Set(roomIds.filter((roomId) => roomId === 'lagging')) },
        queues,
        // Far enough ahead that every queue just created is past the grace.
        now: () => new Date(Date.now() + 600_000),
      },
      { graceS: 300 },
    );

    expect(result.deletedQueues.sort()).toEqual([ended, endedAssign].sort());
    const remaining = (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix.slice(0, -6) }))).QueueUrls;
    expect(remaining).toEqual(expect.arrayContaining([live, lagging, other, liveAssign]));
    expect(remaining).not.toContain(ended);
    expect(remaining).not.toContain(endedAssign);
    expect(sent.filter((s) => s.command === 'ListQueuesCommand')[0]?.input).toMatchObject({
      QueueNamePrefix: prefix,
      MaxResults: 1000,
    });
    const aged = sent.filter((s) => s.command === 'GetQueueAttributesCommand').map((s) => s.input);
    expect(aged.map((input) => input.AttributeNames)).toEqual([['CreatedTimestamp'], ['CreatedTimestamp']]);
    expect(aged.map((input) => input.QueueUrl).sort()).toEqual([ended, endedAssign].sort());
    expect(
      sent
        .filter((s) => s.command === 'DeleteQueueCommand')
        .map((s) => s.input.QueueUrl)
        .sort(),
    ).toEqual([ended, endedAssign].sort());

    // Deleting a queue its sidecar already deleted is no error.
    await queues.delete(ended);
    for (const q of [live, lagging, other, liveAssign]) await sqs.send(new DeleteQueueCommand({ QueueUrl: q }));
    await expect(
      sqs.send(new GetQueueAttributesCommand({ QueueUrl: live, AttributeNames: ['All'] })),
    ).rejects.toThrow();
  });
});
