import { DescribeTasksCommand, ECSClient, ListContainerInstancesCommand, ListTasksCommand } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { PhasesFailedError } from '../../../core/infra/phases';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { sweep } from '../../../lambdas/schedule/room-sweeper';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { ecsError } from '../../helpers/aws-errors';

/**
 * The room sweeper's phases against real DynamoDB Local (rooms, fleet) and the SQS emulator,
 * deployed on ECS (ECS itself mocked: it has no local engine). A phase that fails leaves the
 * others running; above all, the ECS hosts' heartbeats, without which placement refuses
 * every create.
 */
const ecsMock = mockClient(ECSClient);
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    ECS_CLUSTER: 'games',
    ECS_TASK_DEFINITION: 'arn:aws:ecs:us-east-1:111122223333:task-definition/rk-game:1',
  });
});
afterAll(() => platform.close());

const arn = (cluster: string, id: string) => `arn:aws:ecs:us-east-1:111122223333:task/${cluster}/${id}`;

describe('room sweeper phases', () => {
  it("records the ECS hosts' heartbeats though the orphan pass's ECS listing is refused, then fails the run naming that phase", async () => {
    const p = lambdaPlatform();
    await p.fleet.putRegion({ name: 'us-east-1', location: { lat: 38.9, lon: -77.4 }, default: true });
    await p.fleet.addHost(
      {
        hostId: 'ecs-a',
        region: 'us-east-1',
        maxServers: 10,
        limits: { cpu: 0.9, memory: 0.9 },
        ecs: { cluster: 'hosts-a' },
      },
      p.now(),
    );
    const refused = ecsError('InvalidParameterException', 'refused');
    ecsMock
      .on(ListTasksCommand, { cluster: 'games' })
      .rejects(refused)
      .on(ListTasksCommand, { cluster: 'hosts-a' })
      .resolves({ taskArns: [arn('hosts-a', '1'), arn('hosts-a', '2')] })
      .on(DescribeTasksCommand)
      .resolves({
        tasks: ['1', '2'].map((id) => ({
          taskArn: arn('hosts-a', id),
          desiredStatus: 'RUNNING',
          lastStatus: 'RUNNING',
        })),
      })
      .on(ListContainerInstancesCommand)
      .resolves({ containerInstanceArns: [] });

    const run = sweep();

    await expect(run).rejects.toThrow(PhasesFailedError);
    await expect(run).rejects.toMatchObject({ failures: [{ phase: 'orphans', error: refused }] });
    expect((await p.fleet.getHost('ecs-a')).heartbeat).toMatchObject({ servers: 2, cpu: 0, memory: 0 });
    // The orphan pass did ask ECS (through the deployed spawner chain) for the stack's cluster.
    expect(ecsMock.commandCalls(ListTasksCommand).map((c) => c.args[0].input.cluster)).toContain('games');
  });
});
