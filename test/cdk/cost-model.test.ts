import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import { queueDefinitions } from '../../core/infra/queues';
import { defaultWorkload, usEast1Prices } from '../../scripts/cost-model/inputs';
import { monthlyCost, resourcesOf, type TemplateJson } from '../../scripts/cost-model/model';
import { auth, gameImage, useScratch } from './support';

/** The cost model reads the real template: every function in its place, the task's size, the schedule. */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

describe('cost model on the synthesized stack', () => {
  const stack = addRoomkeeper(newApp({ stage: 'cost', ...auth, gameImage }));
  const resources = resourcesOf(Template.fromStack(stack).toJSON() as TemplateJson);

  it('finds one function per deployed route, one consumer per queue and the scheduled sweeper and pool keeper', () => {
    const roles = (role: string) => resources.functions.filter((f) => f.role === role).length;
    expect(roles('route')).toBe(deployableRoutes().length);
    expect(roles('consumer')).toBe(Object.keys(queueDefinitions).length);
    expect(roles('scheduled')).toBe(2);
    expect(resources.schedulesPerHour).toEqual([60, 60]);
  });

  it('reads the game server task size from its task definition', () => {
    const task = stack.fleet.taskDefinition.node.defaultChild as CfnTaskDefinition;
    expect(resources.tasks[0]).toMatchObject({ vcpu: Number(task.cpu) / 1024, memoryGB: Number(task.memory) / 1024 });
  });

  it('prices the stack: a task-dominated bill that grows with players, and a small idle one', () => {
    const [idle, busy] = [0, 1000].map((ccu) => monthlyCost(resources, usEast1Prices, defaultWorkload, ccu));
    expect(idle!.byService.Fargate).toBe(0);
    expect(idle!.platform).toBeGreaterThan(0);
    expect(busy!.byService.Fargate).toBeGreaterThan(busy!.platform / 2);
  });
});
