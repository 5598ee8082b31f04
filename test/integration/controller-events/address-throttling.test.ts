import { randomUUID } from 'node:crypto';
import { DescribeTasksCommand, ECSClient } from '@aws-sdk/client-ecs';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteQueueCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { forwardedCall, gameRequestId, type ControllerRequest } from '../../../core/protocol/controller-messages';
import { sealRequest } from '../../../core/protocol/sidecar-channel';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { aRoom } from '../../helpers/factories';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { controllerQueueEvent } from '../../helpers/sidecar-channel';
import { ecsError } from '../../helpers/aws-errors';

/**
 * An `inited` whose address lookup ECS throttles, through the deployed locator (ECS mocked: it
 * has no local engine) and the real consumer against DynamoDB Local and the SQS emulator: the
 * message goes back to the queue for seconds, after one lookup, never for the queue's 60 s.
 */
const ecsMock = mockClient(ECSClient);
let platform: TestPlatform;
let sqs: SQSClient;
let controllerQueue: string;

beforeAll(async () => {
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  const name = `rk-throttle-${randomUUID().slice(0, 8)}.fifo`;
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { FifoQueue: 'true' } }));
  controllerQueue = created.QueueUrl ?? '';
  platform = await startTestPlatform({
    ECS_CLUSTER: 'games',
    ECS_TASK_DEFINITION: 'arn:aws:ecs:us-east-1:111122223333:task-definition/rk-game:1',
    QUEUE_URL_CONTROLLER_REQUESTS: controllerQueue,
  });
});
afterAll(async () => {
  await platform.close();
  await sqs.send(new DeleteQueueCommand({ QueueUrl: controllerQueue }));
  sqs.destroy();
});

it('hands a throttled lookup back with a visibility of seconds, without retrying it in place', async () => {
  ecsMock.on(DescribeTasksCommand).rejects(ecsError('ThrottlingException', 'Rate exceeded'));
  const room = aRoom({
    state: 'spawning',
    placement: { taskId: 'arn:aws:ecs:us-east-1:111122223333:task/games/t1', host: 'pending', ports: [7777] },
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
  });
  await dynamoRoomStore(platform.db, platform.tableName).createWithMember(room);
  const p = lambdaPlatform();
  const sent = jest.spyOn(p.sqs, 'send');
  const inited: ControllerRequest = {
    type: 'rpc',
    roomId: room.roomId,
    sentAt: new Date().toISOString(),
    correlationId: randomUUID(),
    replyTo: `${controllerQueue}-reply`,
    ...forwardedCall('inited', {}, gameRequestId(randomUUID())),
  };
  const body = JSON.stringify(sealRequest(await p.sidecarKeys(room.roomId), JSON.stringify(inited)));

  const outcome = await processControllerEvents(controllerQueueEvent([room.roomId], [body]));

  expect(outcome.batchItemFailures).toHaveLength(1);
  expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(1);
  const shortened = sent.mock.calls
    .map(([command]) => command)
    .filter((command) => command instanceof ChangeMessageVisibilityBatchCommand)
    .flatMap((command) => (command as ChangeMessageVisibilityBatchCommand).input.Entries ?? []);
  expect(shortened).toEqual([expect.objectContaining({ ReceiptHandle: 'r' })]);
  expect(shortened[0]?.VisibilityTimeout).toBeLessThanOrEqual(4);
  expect((await p.rooms.get(room.roomId)).state).toBe('spawning');
});
