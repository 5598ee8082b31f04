import { Template } from 'aws-cdk-lib/assertions';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { auth, gameImage, render, statementsOf, useScratch, type Statement } from './support';

/**
 * ECS hosts in other clusters of the account and region (`-c hostClusters=…`): the functions
 * that start, stop, list and measure room tasks may do so there too, and nowhere else.
 */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

const pseudo = (resource: string) => `arn:\${AWS::Partition}:ecs:\${AWS::Region}:\${AWS::AccountId}:${resource}`;
const withAction = (statements: Statement[], action: string) => statements.filter((s) => s.actions.includes(action));
const clustersOf = (statement: Statement | undefined) =>
  [(statement?.condition?.ArnEquals as Record<string, unknown>)['ecs:cluster']].flat().map(render);

describe('hostClusters', () => {
  const stack = addRoomkeeper(newApp({ stage: 'hosts', gameImage, hostClusters: 'games-b, games-spot', ...auth }));
  const template = Template.fromStack(stack);
  const own = stack.fleet.clusterName;
  const create = statementsOf(template, stack, stack.routeFunctions.get('createRoom')!);
  const sweeper = statementsOf(template, stack, stack.sweeper);

  it('lets the room-creating routes start and stop tasks in the fleet cluster and in each host cluster', () => {
    const runTask = withAction(create, 'ecs:RunTask')[0];
    const clusters = clustersOf(runTask);
    expect(clusters).toHaveLength(3);
    expect(clusters).toEqual(expect.arrayContaining([pseudo('cluster/games-b'), pseudo('cluster/games-spot')]));
    expect(withAction(create, 'ecs:StopTask')[0]?.resources.map(render).sort()).toEqual(
      [pseudo(`task/${own}/*`), pseudo('task/games-b/*'), pseudo('task/games-spot/*')].sort(),
    );
  });

  it('lets the sweeper list, describe and measure room tasks and instances of those clusters only', () => {
    expect(clustersOf(withAction(sweeper, 'ecs:ListTasks')[0])).toHaveLength(3);
    expect(withAction(sweeper, 'ecs:DescribeContainerInstances')[0]?.resources.map(render).sort()).toEqual(
      [
        pseudo(`container-instance/${own}/*`),
        pseudo('container-instance/games-b/*'),
        pseudo('container-instance/games-spot/*'),
      ].sort(),
    );
    const listed = withAction(sweeper, 'ecs:ListContainerInstances')[0]?.resources.map(render) ?? [];
    expect(listed).toHaveLength(3);
    expect(listed).toEqual(expect.arrayContaining([pseudo('cluster/games-b'), pseudo('cluster/games-spot')]));
  });

  it('refuses a name that is not an ECS cluster name', () => {
    expect(() => addRoomkeeper(newApp({ stage: 'badhosts', gameImage, hostClusters: 'games b', ...auth }))).toThrow(
      /hostClusters/,
    );
  });
});
