import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  checkReservedConcurrency,
  defaultLambdaConcurrencyQuota,
  reservedConcurrencyProblem,
} from '../../cdk/lib/constructs/account-limits';
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
 * queues against their consumers' timeouts, and the consumer's concurrency, capped without
 * reserving any. The stack is synthesized for a new account's Lambda quota of 10.
 */
const { newApp, cleanUp } = useScratch();
/** Lambda's concurrency quota of a new account: the stack must deploy there too. */
const newAccountQuota = '10';
let stack: RoomkeeperStack;
let template: Template;
let resources: Json;

beforeAll(() => {
  stack = addRoomkeeper(newApp({ stage: 'limits', ...auth, gameImage, lambdaConcurrencyQuota: newAccountQuota }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Json;
});
afterAll(cleanUp);

describe('queue visibility against consumer timeouts', () => {
  it('every queue/consumer pair of the template: visibility ≥ 6 × the function timeout', () => {
    // The table stream's mapping (test/cdk/live.test.ts) has no visibility timeout.
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (mapping) => mapping.Properties.EventSourceArn['Fn::GetAtt'][1] === 'Arn',
    );
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
  it('no function reserves concurrency: the consumer is capped by its event source mapping', () => {
    expect(JSON.stringify(template.toJSON())).not.toContain('ReservedConcurrentExecutions');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack, stack.consumers.controllerRequests) },
      ScalingConfig: { MaximumConcurrency: queueDefinitions.controllerRequests.maxConcurrency },
    });
  });

  it('the template reserves what an account of -c lambdaConcurrencyQuota allows (none reserved, or the sum + 100 ≤ quota)', () => {
    const reserved = Object.values(template.findResources('AWS::Lambda::Function'))
      .map((fn) => fn.Properties.ReservedConcurrentExecutions as number | undefined)
      .filter((n): n is number => n !== undefined);
    for (const quota of [Number(newAccountQuota), defaultLambdaConcurrencyQuota]) {
      expect(reservedConcurrencyProblem(reserved, quota)).toBeUndefined();
    }
  });

  it('synthesis fails when the functions reserve more than the quota leaves above Lambda’s 100 unreserved', () => {
    const synthesize = (context: Json, reserved: number) => () => {
      const scratch = new Stack(newApp(context), 'Reserving');
      new lambda.Function(scratch, 'Fn', {
        runtime: lambda.Runtime.NODEJS_24_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => {};'),
        reservedConcurrentExecutions: reserved,
      });
      checkReservedConcurrency(scratch);
      return Template.fromStack(scratch);
    };
    expect(synthesize({ lambdaConcurrencyQuota: '120' }, 20)).not.toThrow();
    expect(synthesize({ lambdaConcurrencyQuota: '119' }, 20)).toThrow(/reserves 20 .* may reserve at most 19/);
    expect(synthesize({ lambdaConcurrencyQuota: 10 }, 1)).toThrow(/may reserve at most 0/);
    expect(synthesize({}, 900)).not.toThrow();
    expect(synthesize({}, 901)).toThrow(/quota is 1000/);
    expect(synthesize({ lambdaConcurrencyQuota: 'lots' }, 1)).toThrow(
      /"lambdaConcurrencyQuota" must be a positive integer/,
    );
  });

  it('consumerMaxConcurrency sets the cap (2 to 1,000, an integer)', () => {
    const capped = addRoomkeeper(newApp({ stage: 'capped', ...auth, gameImage }), { consumerMaxConcurrency: 200 });
    const mappings = capped.node
      .findAll()
      .filter((c): c is lambda.CfnEventSourceMapping => c instanceof lambda.CfnEventSourceMapping);
    expect(mappings.map((m) => capped.resolve(m.scalingConfig) as unknown)).toEqual([{ maximumConcurrency: 200 }]);
    for (const [stage, cap] of [
      ['cap-low', 1],
      ['cap-high', 1001],
      ['cap-frac', 2.5],
    ] as const) {
      expect(() => addRoomkeeper(newApp({ stage, ...auth, gameImage }), { consumerMaxConcurrency: cap })).toThrow(
        /concurrency cap of queue controllerRequests must be an integer from 2 to 1000/,
      );
    }
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
