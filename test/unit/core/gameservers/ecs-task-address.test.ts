import { DescribeNetworkInterfacesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeTasksCommand, ECSClient, type Task } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { EcsTaskAddresses } from '../../../../core/gameservers/ecs-task-address';
import { ServerAddressThrottledError } from '../../../../core/gameservers/errors';
import { ec2Error, ecsError } from '../../../helpers/aws-errors';

const ecsMock = mockClient(ECSClient);
const ec2Mock = mockClient(EC2Client);
beforeEach(() => {
  ecsMock.reset();
  ec2Mock.reset();
});

const arn = (id: string, cluster = 'rk-game-servers') => `arn:aws:ecs:eu-west-1:111122223333:task/${cluster}/${id}`;
const eni = (id: string) => `eni-0${id}`;
const addresses = () =>
  new EcsTaskAddresses(
    new ECSClient({ region: 'eu-west-1' }),
    new EC2Client({ region: 'eu-west-1' }),
    'rk-game-servers',
  );
const room = (taskId: string) => ({ roomId: `room-${taskId}`, placement: { taskId, host: 'pending', ports: [7777] } });

/** A task as DescribeTasks describes it, with its ENI attached. */
function described(taskArn: string, id: string): Task {
  return {
    taskArn,
    attachments: [
      {
        type: 'ElasticNetworkInterface',
        details: [
          { name: 'subnetId', value: 'subnet-a' },
          { name: 'networkInterfaceId', value: eni(id) },
          { name: 'privateIPv4Address', value: '10.0.1.5' },
        ],
      },
    ],
  };
}

describe('ECS task addresses (DescribeTasks → DescribeNetworkInterfaces)', () => {
  it('answers 10 concurrent lookups with one DescribeTasks and one DescribeNetworkInterfaces carrying every id', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => String(i));
    ecsMock.on(DescribeTasksCommand).resolves({ tasks: ids.map((id) => described(arn(id), id)) });
    ec2Mock.on(DescribeNetworkInterfacesCommand).resolves({
      // Task 9's interface has no public IP yet.
      NetworkInterfaces: ids.map((id) => ({
        NetworkInterfaceId: eni(id),
        ...(id === '9' ? {} : { Association: { PublicIp: `203.0.113.${id}` } }),
      })),
    });
    const locate = addresses().locate;

    const found = await Promise.all(ids.map((id) => locate(room(arn(id)))));

    expect(found).toEqual([...ids.slice(0, 9).map((id) => `203.0.113.${id}`), undefined]);
    expect(ecsMock.commandCalls(DescribeTasksCommand).map((c) => c.args[0].input)).toEqual([
      { cluster: 'rk-game-servers', tasks: ids.map((id) => arn(id)) },
    ]);
    // A filter, not NetworkInterfaceIds: an id that no longer exists would fail the whole call.
    expect(ec2Mock.commandCalls(DescribeNetworkInterfacesCommand).map((c) => c.args[0].input)).toEqual([
      { Filters: [{ Name: 'network-interface-id', Values: ids.map(eni) }], MaxResults: 1000 },
    ]);
  });

  it("asks each task's own cluster, and knows no address for a task without an ENI, a stopped task, or a room not placed yet", async () => {
    ecsMock
      .on(DescribeTasksCommand, { cluster: 'rk-game-servers' })
      .resolves({ tasks: [described(arn('a'), 'a'), { taskArn: arn('b'), attachments: [] }] })
      .on(DescribeTasksCommand, { cluster: 'games-b' })
      .resolves({ tasks: [described(arn('c', 'games-b'), 'c')] });
    ec2Mock.on(DescribeNetworkInterfacesCommand).resolves({
      NetworkInterfaces: [
        { NetworkInterfaceId: eni('a'), Association: { PublicIp: '203.0.113.1' } },
        { NetworkInterfaceId: eni('c'), Association: { PublicIp: '203.0.113.3' } },
      ],
    });
    const locate = addresses().locate;

    const found = await Promise.all([
      locate(room(arn('a'))),
      locate(room(arn('b'))),
      locate(room(arn('c', 'games-b'))),
      locate(room(arn('stopped'))),
      locate({ roomId: 'unplaced' }),
    ]);

    expect(found).toEqual(['203.0.113.1', undefined, '203.0.113.3', undefined, undefined]);
    expect(
      ecsMock
        .commandCalls(DescribeTasksCommand)
        .map((c) => c.args[0].input)
        .sort((x, y) => String(x.cluster).localeCompare(String(y.cluster))),
    ).toEqual([
      { cluster: 'games-b', tasks: [arn('c', 'games-b')] },
      { cluster: 'rk-game-servers', tasks: [arn('a'), arn('b'), arn('stopped')] },
    ]);
    expect(ec2Mock.commandCalls(DescribeNetworkInterfacesCommand)).toHaveLength(1);
  });

  it.each([
    [
      'ECS ThrottlingException',
      () => ecsMock.on(DescribeTasksCommand).rejects(ecsError('ThrottlingException', 'Rate exceeded')),
    ],
    [
      'EC2 RequestLimitExceeded',
      () => {
        ecsMock.on(DescribeTasksCommand).resolves({ tasks: [described(arn('1'), '1'), described(arn('2'), '2')] });
        ec2Mock
          .on(DescribeNetworkInterfacesCommand)
          .rejects(ec2Error('RequestLimitExceeded', 'Request limit exceeded.', 503));
      },
    ],
  ])('fails every lookup of a throttled batch (%s) as ServerAddressThrottledError', async (_name, arrange) => {
    arrange();
    const locate = addresses().locate;
    const outcomes = await Promise.allSettled([locate(room(arn('1'))), locate(room(arn('2')))]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason : o.value))).toEqual([
      expect.any(ServerAddressThrottledError),
      expect.any(ServerAddressThrottledError),
    ]);
    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(1);
  });

  it('passes any other failure on unchanged (the message is retried)', async () => {
    ecsMock.on(DescribeTasksCommand).rejects(ecsError('AccessDeniedException', 'denied'));
    await expect(addresses().locate(room(arn('1')))).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});
