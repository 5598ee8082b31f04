import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ProjectFunction } from '../../cdk/lib/constructs/project-function';
import { ProjectQueue } from '../../cdk/lib/constructs/project-queue';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import { runTaskRate } from '../../core/gameservers/throttled-spawner';
import { queueDefinitions, queueUrlVariable } from '../../core/infra/queues';
import { auth, gameImage, logicalId, render, statementsOf, useScratch, type Json } from './support';

/**
 * Issue 10, points 6 and 7: the room-creating routes' throttle against ECS's RunTask rate;
 * queues against their consumers' timeouts, and the consumer's reserved executions.
 */
const { newApp, cleanUp } = useScratch();
let stack: RoomkeeperStack;
let template: Template;
let resources: Json;

beforeAll(() => {
  stack = addRoomkeeper(newApp({ stage: 'limits', ...auth, gameImage }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Json;
});
afterAll(cleanUp);

describe('queue visibility against consumer timeouts', () => {
  it('every queue/consumer pair of the template: visibility ≥ 6 × the function timeout', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings.length).toBe(Object.keys(queueDefinitions).length);
    for (const mapping of mappings) {
      const functionId = mapping.Properties.FunctionName.Ref as string;
      const queueId = mapping.Properties.EventSourceArn['Fn::GetAtt'][0] as string;
      expect(resources[queueId].Type).toBe('AWS::SQS::Queue');
      const timeoutS = resources[functionId].Properties.Timeout as number;
      const visibilityS = resources[queueId].Properties.VisibilityTimeout as number;
      expect(timeoutS).toBeGreaterThan(0);
      expect(visibilityS).toBeGreaterThanOrEqual(6 * timeoutS);
      // No batching window that would add to the rule.
      expect(mapping.Properties.MaximumBatchingWindowInSeconds).toBeUndefined();
    }
  });

  it('binding a consumer to a queue whose visibility is under 6 × its timeout fails synthesis', () => {
    const scratch = new Stack(newApp(), 'Scratch');
    const queue = new ProjectQueue(scratch, 'Queue', {
      definition: { ...queueDefinitions.controllerRequests, visibilityTimeoutS: 30 },
      namePrefix: 'scratch',
    });
    const fn = new ProjectFunction(scratch, 'Consumer', {
      entry: queueDefinitions.controllerRequests.consumer,
      timeout: Duration.seconds(10),
    });
    expect(() => fn.bindQueue(queue, 'consume')).toThrow(/under 6 × the function's timeout \(10 s\)/);
  });
});

describe('controller-events consumer concurrency', () => {
  it('has reserved executions, and its event source mapping never runs more batches than they allow', () => {
    const consumerId = logicalId(stack, stack.consumers.controllerRequests);
    const reserved = resources[consumerId].Properties.ReservedConcurrentExecutions as number;
    expect(reserved).toBe(queueDefinitions.controllerRequests.reservedConcurrency);
    expect(reserved).toBeGreaterThanOrEqual(10);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: consumerId },
      ScalingConfig: { MaximumConcurrency: reserved },
    });
  });

  it('may shorten the visibility of the messages it hands back, on its own queue only, and knows its URL', () => {
    const consumer = stack.consumers.controllerRequests;
    const queue = stack.queues.controllerRequests.queue;
    const changes = statementsOf(template, stack, consumer).filter((s) =>
      s.actions.includes('sqs:ChangeMessageVisibility'),
    );
    expect(changes.map((s) => s.resources.map(render))).toEqual([
      [`\${${stack.getLogicalId(queue.node.defaultChild as never)}.Arn}`],
    ]);
    const variables = resources[logicalId(stack, consumer)].Properties.Environment.Variables as Json;
    expect(render(variables[queueUrlVariable('controllerRequests')])).toBe(
      `\${${stack.getLogicalId(queue.node.defaultChild as never)}}`,
    );
  });

  it('no route function reserves executions (they draw from the unreserved pool)', () => {
    for (const fn of stack.routeFunctions.values()) {
      expect(resources[logicalId(stack, fn)].Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });
});

describe('room-creating routes against the RunTask rate', () => {
  const stageProps = () => Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!.Properties as Json;

  it('POST /v1/rooms and POST /v1/matchmaking/join are throttled at the RunTask rate (20/s, bursts of 100)', () => {
    expect(runTaskRate).toEqual({ ratePerS: 20, burst: 100 });
    expect(stageProps().RouteSettings).toEqual({
      'POST /v1/rooms': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 100 },
      'POST /v1/matchmaking/join': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 100 },
    });
  });

  it('every route that spawns is throttled, and only those; the stage keeps its default for the rest', () => {
    const spawning = deployableRoutes()
      .filter((route) => route.needs?.includes('spawn'))
      .map((route) => `${route.method} ${route.path}`);
    expect(Object.keys(stageProps().RouteSettings as Json).sort()).toEqual(spawning.sort());
    expect(stageProps().DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
  });

  it('the stage is deployed after the routes its settings name', () => {
    const [, stage] = Object.entries(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const named = Object.entries(routes)
      .filter(([, route]) => (route.Properties.RouteKey as string) in (stage.Properties.RouteSettings as Json))
      .map(([id]) => id);
    expect(named).toHaveLength(2);
    expect(stage.DependsOn).toEqual(expect.arrayContaining(named));
  });

  it('spawnRouteThrottle overrides the default', () => {
    const custom = addRoomkeeper(newApp({ stage: 'quota', ...auth, gameImage }), {
      spawnRouteThrottle: { rateLimit: 50, burstLimit: 200 },
    });
    const settings = Object.values(Template.fromStack(custom).findResources('AWS::ApiGatewayV2::Stage'))[0]!.Properties
      .RouteSettings as Json;
    expect(settings['POST /v1/rooms']).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 200 });
  });
});
