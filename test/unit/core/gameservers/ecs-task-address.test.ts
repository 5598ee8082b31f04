import { DescribeNetworkInterfacesCommand, EC2Client, EC2ServiceException } from '@aws-sdk/client-ec2';
import { DescribeTasksCommand, ECSClient } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { ec2PublicIpLookup, ecsTaskLocator } from '../../../../core/gameservers/ecs-task-address';

const ecsMock = mockClient(ECSClient);
const ec2Mock = mockClient(EC2Client);
beforeEach(() => {
  ecsMock.reset();
  ec2Mock.reset();
});

const taskArn = 'arn:aws:ecs:eu-west-1:111122223333:task/rk-game-servers/abc';
const ec2 = () => new EC2Client({ region: 'eu-west-1' });

function ec2Error(name: string): EC2ServiceException {
  return new EC2ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: 400 }, message: name });
}

describe('ECS task address (DescribeTasks → DescribeNetworkInterfaces)', () => {
  it('asks ECS for exactly the room task in the cluster, then EC2 for exactly its ENI, and returns the public IPv4', async () => {
    ecsMock.on(DescribeTasksCommand).resolves({
      tasks: [
        {
          taskArn,
          attachments: [
            {
              type: 'ElasticNetworkInterface',
              details: [
                { name: 'subnetId', value: 'subnet-a' },
                { name: 'networkInterfaceId', value: 'eni-0abc' },
                { name: 'privateIPv4Address', value: '10.0.1.5' },
              ],
            },
          ],
        },
      ],
    });
    ec2Mock.on(DescribeNetworkInterfacesCommand).resolves({
      NetworkInterfaces: [
        {
          NetworkInterfaceId: 'eni-0abc',
          PrivateIpAddress: '10.0.1.5',
          Association: { PublicIp: '203.0.113.7', IpOwnerId: 'amazon' },
        },
      ],
    });
    const locate = ecsTaskLocator(new ECSClient({ region: 'eu-west-1' }), 'rk-game-servers', ec2PublicIpLookup(ec2()));

    await expect(
      locate({ roomId: 'room-1', placement: { taskId: taskArn, host: 'pending', ports: [7777] } }),
    ).resolves.toBe('203.0.113.7');

    expect(ecsMock.commandCalls(DescribeTasksCommand).map((call) => call.args[0].input)).toEqual([
      { cluster: 'rk-game-servers', tasks: [taskArn] },
    ]);
    expect(ec2Mock.commandCalls(DescribeNetworkInterfacesCommand).map((call) => call.args[0].input)).toEqual([
      { NetworkInterfaceIds: ['eni-0abc'] },
    ]);
  });

  it('knows no address while the ENI has no public IP, the task has no ENI yet, or the room has no task yet', async () => {
    ec2Mock
      .on(DescribeNetworkInterfacesCommand)
      .resolves({ NetworkInterfaces: [{ NetworkInterfaceId: 'eni-0abc', PrivateIpAddress: '10.0.1.5' }] });
    const lookup = ec2PublicIpLookup(ec2());
    await expect(lookup('eni-0abc')).resolves.toBeUndefined();

    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [{ taskArn, attachments: [] }] });
    const locate = ecsTaskLocator(new ECSClient({ region: 'eu-west-1' }), 'c', lookup);
    await expect(
      locate({ roomId: 'r', placement: { taskId: taskArn, host: 'pending', ports: [] } }),
    ).resolves.toBeUndefined();
    await expect(locate({ roomId: 'r' })).resolves.toBeUndefined();
    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(1);
    expect(ec2Mock.commandCalls(DescribeNetworkInterfacesCommand)).toHaveLength(1);
  });

  it('a deleted interface is no address; any other EC2 error is thrown (the message is retried)', async () => {
    ec2Mock.on(DescribeNetworkInterfacesCommand).rejects(ec2Error('InvalidNetworkInterfaceID.NotFound'));
    await expect(ec2PublicIpLookup(ec2())('eni-x')).resolves.toBeUndefined();
    ec2Mock.reset();
    ec2Mock.on(DescribeNetworkInterfacesCommand).rejects(ec2Error('UnauthorizedOperation'));
    await expect(ec2PublicIpLookup(ec2())('eni-x')).rejects.toThrow('UnauthorizedOperation');
  });
});
