import * as fs from 'node:fs';
import * as path from 'node:path';
import { type App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ProjectFunction } from '../../cdk/lib/constructs/project-function';
import { ProjectQueue } from '../../cdk/lib/constructs/project-queue';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { tableAccessFor } from '../../cdk/lib/constructs/player-api';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import { parseConfig } from '../../core/infra/config';
import { qualifiedQueueName, queueDefinitions, queueUrlVariable, type QueueId } from '../../core/infra/queues';
import { createTableInput, tableDefinition } from '../../core/infra/table';
import { routes, type RouteDefinition } from '../../lambdas/http/routes';
import {
  auth,
  gameImage,
  identityStatements,
  logicalId,
  renderedEnvironment,
  statementsOf,
  useScratch,
  type Json,
} from './support';

const allRoutes: readonly RouteDefinition[] = routes;
const deployable = allRoutes.filter((route) => !route.localOnly);
const localOnly = allRoutes.filter((route) => route.localOnly);
const queueIds = Object.keys(queueDefinitions) as QueueId[];
/** ProjectFunction's default timeout, for routes without `timeoutS`. */
const defaultTimeoutS = 10;
const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

const { newApp, cleanUp } = useScratch();

function routeFunction(stack: RoomkeeperStack, route: RouteDefinition): ProjectFunction {
  const fn = stack.routeFunctions.get(route.id);
  if (!fn) throw new Error(`No function for route ${route.id}`);
  return fn;
}

let app: App;
let stack: RoomkeeperStack;
let template: Template;

/** The player API's id: the live WebSocket API has routes and a stage too (test/cdk/live.test.ts). */
const httpApiRef = () => ({ Ref: stack.getLogicalId(stack.api.node.defaultChild as never) });

beforeAll(() => {
  app = newApp({ stage: 'test', ...auth, gameImage });
  stack = addRoomkeeper(app);
  // Synthesis runs the cdk-nag plugin: an unacknowledged error throws right here.
  template = Template.fromStack(stack);
});

afterAll(cleanUp);

describe('table (from core/infra/table.ts)', () => {
  const expected = createTableInput('any');

  it('has the key schema, attributes, indexes, TTL, stream and billing of tableDefinition', () => {
    const tables = template.findResources('AWS::DynamoDB::GlobalTable');
    expect(Object.keys(tables)).toHaveLength(1);
    const [table] = Object.values(tables) as Json[];
    const props = table!.Properties;
    expect(props.KeySchema).toEqual(expected.KeySchema);
    expect(props.AttributeDefinitions).toEqual(expect.arrayContaining(expected.AttributeDefinitions!));
    expect(props.AttributeDefinitions).toHaveLength(expected.AttributeDefinitions!.length);
    expect(props.GlobalSecondaryIndexes).toEqual(expected.GlobalSecondaryIndexes);
    expect(props.GlobalSecondaryIndexes.map((index: Json) => index.IndexName)).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
    );
    expect(props.TimeToLiveSpecification).toEqual({
      AttributeName: tableDefinition.timeToLiveAttribute,
      Enabled: true,
    });
    // Room changes become taps (test/cdk/live.test.ts).
    expect(props.StreamSpecification).toEqual({ StreamViewType: expected.StreamSpecification!.StreamViewType });
    expect(props.BillingMode).toBe(expected.BillingMode);
  });

  it('has the sweeper index: sparse live rooms in shards, keys only, and the TTL that collects ended rooms', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: 'gsi3',
          KeySchema: [
            { AttributeName: 'gsi3pk', KeyType: 'HASH' },
            { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ]),
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });

  it('keeps data: point-in-time recovery, deletion protection, retained on stack deletion', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      },
    });
  });
});

describe('queues (from core/infra/queues.ts)', () => {
  it.each(queueIds)('%s has its dead-letter queue, redrive, FIFO flag and visibility timeout', (queueId) => {
    const definition = queueDefinitions[queueId];
    const dlqs = template.findResources('AWS::SQS::Queue', {
      Properties: { QueueName: qualifiedQueueName(stack.namePrefix, definition.deadLetter.name) },
    });
    expect(Object.keys(dlqs)).toHaveLength(1);
    const dlqId = Object.keys(dlqs)[0]!;
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: qualifiedQueueName(stack.namePrefix, definition.name),
      FifoQueue: definition.fifo ? true : Match.absent(),
      VisibilityTimeout: definition.visibilityTimeoutS,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: definition.deadLetter.maxReceiveCount,
      },
      SqsManagedSseEnabled: true,
    });
    expect(dlqs[dlqId]!.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      ...(definition.fifo ? { FifoQueue: true } : {}),
    });
  });

  it('every queue is encrypted and refuses requests without TLS', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    // Each queue and its dead letters, and the live tap consumer's failure queue.
    expect(Object.keys(queues)).toHaveLength(queueIds.length * 2 + 1);
    for (const [id, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });
});

describe('HTTP API (from lambdas/http/routes.ts)', () => {
  it.each(deployable.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s exists with the authorizer and scope its table entry asks for',
    (routeKey, route) => {
      const matches = template.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: routeKey, ApiId: httpApiRef() },
      });
      expect(Object.keys(matches)).toHaveLength(1);
      const props = Object.values(matches)[0]!.Properties;
      if (route.auth === 'jwt') {
        expect(props.AuthorizationType).toBe('JWT');
        expect(props.AuthorizerId).toEqual({ Ref: expect.any(String) });
      } else {
        expect(props.AuthorizationType).toBe('NONE');
        expect(['/health', '/console', '/console/{path+}']).toContain(route.path);
      }
      expect(props.AuthorizationScopes).toEqual(route.scope ? [route.scope] : undefined);
    },
  );

  it('deploys exactly the non-local routes and nothing under /v1/dev/', () => {
    const keys = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: httpApiRef() } }),
    ).map((r) => r.Properties.RouteKey as string);
    expect(keys.sort()).toEqual(deployable.map((r) => `${r.method} ${r.path}`).sort());
    expect(keys.filter((key) => key.includes('/v1/dev/'))).toEqual([]);
    for (const route of localOnly) expect(keys).not.toContain(`${route.method} ${route.path}`);
    expect(localOnly.every((route) => !stack.routeFunctions.has(route.id))).toBe(true);
  });

  it('the authorizer trusts the configured issuer and audience', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: auth.authIssuer, Audience: [auth.authAudience] },
    });
  });

  it('the stage writes access logs to a log group with retention and throttles by default', () => {
    const stages = Object.values(
      template.findResources('AWS::ApiGatewayV2::Stage', { Properties: { ApiId: httpApiRef() } }),
    );
    expect(stages).toHaveLength(1);
    const props = stages[0]!.Properties;
    expect(props.StageName).toBe('$default');
    expect(props.AutoDeploy).toBe(true);
    expect(props.DefaultRouteSettings).toEqual({
      ThrottlingBurstLimit: expect.any(Number),
      ThrottlingRateLimit: expect.any(Number),
    });
    const logGroupId = props.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
    expect(template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBeGreaterThan(0);
    const format = JSON.parse(props.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    expect(Object.values(format).join(' ')).not.toMatch(/header|authorization|body/i);
  });
});

describe('Lambda functions', () => {
  it('one function per deployable route, one consumer per queue, the sweeper, the pool keeper, the signing key provisioner and the two live functions, nothing else', () => {
    template.resourceCountIs('AWS::Lambda::Function', deployable.length + queueIds.length + 5);
  });

  it('every platform function: its environment is accepted by parseConfig (core/infra/config.ts)', () => {
    // The signing key provisioner (a deploy-time custom resource) reads no platform configuration.
    const provisioner = logicalId(stack, stack.signingKey.provisioner);
    const functions = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => id !== provisioner);
    expect(functions.length).toBeGreaterThan(deployable.length);
    for (const id of functions) {
      // Tokens resolve only in AWS: rendered as ${LogicalId} stand-ins, which the schema accepts.
      expect(() => parseConfig(renderedEnvironment(template, id))).not.toThrow();
    }
  });

  it('every function: Node.js 24 on arm64, JSON logs to a log group with retention, active tracing', () => {
    const resources = template.toJSON().Resources as Json;
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      const props = fn.Properties;
      expect(props.Runtime).toBe('nodejs24.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.TracingConfig).toEqual({ Mode: 'Active' });
      expect(props.LoggingConfig).toMatchObject({ LogFormat: 'JSON', LogGroup: { Ref: expect.any(String) } });
      expect(resources[props.LoggingConfig.LogGroup.Ref].Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it.each(deployable.map((route) => [route.id, route] as const))(
    '%s: handler of its entry, environment accepted by parseConfig',
    (_id, route) => {
      const fn = routeFunction(stack, route);
      const props = template.toJSON().Resources[logicalId(stack, fn)].Properties as Json;
      expect(props.Handler).toBe('index.handler');
      expect(props.Description).toBe(`${route.method} ${route.path}`);
      expect(props.Timeout).toBe(route.timeoutS ?? defaultTimeoutS);
      const variables = props.Environment.Variables as Record<string, unknown>;
      expect(variables.TABLE_NAME).toEqual({ Ref: stack.getLogicalId(stack.table.node.defaultChild as never) });
      // Tokens resolve only in AWS: stand in a value (a URL's own rendering, so it stays a URL),
      // then let the real config schema judge.
      const rendered = renderedEnvironment(template, logicalId(stack, fn));
      const env = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === 'string'
            ? value
            : /^(https|wss):\/\//.test(rendered[name]!)
              ? rendered[name]!
              : `deployed-${name}`,
        ]),
      );
      const config = parseConfig(env);
      expect(config.tableName).toBe('deployed-TABLE_NAME');
      expect(config.auth).toMatchObject({ issuer: auth.authIssuer, audience: auth.authAudience });
    },
  );

  it("consoleFile: its config.json names the stack's live socket (LIVE_URL, the LiveUrl output)", () => {
    const fn = routeFunction(
      stack,
      allRoutes.find((route) => route.id === 'consoleFile')!,
    );
    expect(renderedEnvironment(template, logicalId(stack, fn)).LIVE_URL).toMatch(/^wss:\/\/.+\/live$/);
  });

  it.each(deployable.map((route) => [route.id, tableAccessFor(route), route] as const))(
    '%s: table access is %s and nothing more',
    (_id, mode, route) => {
      const fn = routeFunction(stack, route);
      const actions = statementsOf(template, stack, fn).flatMap((s) => s.actions);
      expect(actions).toContain('dynamodb:GetItem');
      expect(actions).not.toContain('dynamodb:Scan');
      for (const write of writeActions) {
        if (mode === 'read') expect(actions).not.toContain(write);
        else expect(actions).toContain(write);
      }
    },
  );

  it.each(queueIds)('consumer of %s: fed by its queue, writes the table, replies to sidecar queues only', (queueId) => {
    const definition = queueDefinitions[queueId];
    const fn = stack.consumers[queueId];
    const fnId = logicalId(stack, fn);
    const queueLogicalId = stack.getLogicalId(stack.queues[queueId].queue.node.defaultChild as never);
    const props = template.toJSON().Resources[fnId].Properties as Json;
    expect(props.Timeout).toBeLessThanOrEqual(definition.visibilityTimeoutS);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [queueLogicalId, 'Arn'] },
      BatchSize: definition.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const variables = props.Environment.Variables as Record<string, unknown>;
    const config = parseConfig(
      Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : `deployed-${k}`])),
    );
    expect(config.replyQueuePrefix).toBe(`${stack.namePrefix}-reply-`);
    const statements = statementsOf(template, stack, fn);
    for (const write of writeActions) expect(statements.flatMap((s) => s.actions)).toContain(write);
    const sends = statements.filter((s) => s.actions.includes('sqs:SendMessage'));
    expect(sends).toHaveLength(1);
    expect(JSON.stringify(sends[0]!.resources)).toContain(`:${config.replyQueuePrefix}*`);
  });

  it('getRoom only reads', () => {
    const getRoom = allRoutes.find((route) => route.id === 'getRoom');
    expect(getRoom && tableAccessFor(getRoom)).toBe('read');
  });
});

describe('IAM: least privilege', () => {
  it('no statement allows "*" or a whole service ("dynamodb:*", "sqs:*")', () => {
    const statements = identityStatements(template).filter((s) => s.effect === 'Allow');
    expect(statements.length).toBeGreaterThan(0);
    const wildcards = statements.flatMap((s) => s.actions.filter((a) => a === '*' || /^[\w-]+:\*$/.test(a)));
    expect(wildcards).toEqual([]);
  });

  it('only X-Ray, the ECR login of the task execution role, the ENI read of the controller consumer and CloudWatch metric reads (no resource-level permissions) are on "*"', () => {
    const onStar = identityStatements(template).filter((s) => s.resources.includes('*'));
    const executionPolicy = stack.getLogicalId(
      stack.fleet.executionRole.node.findChild('DefaultPolicy').node.defaultChild as never,
    );
    const [ecrLogin, others] = [
      onStar.filter((s) => s.owner === executionPolicy),
      onStar.filter((s) => s.owner !== executionPolicy),
    ];
    expect(ecrLogin.flatMap((s) => s.actions)).toEqual(['ecr:GetAuthorizationToken']);
    expect([...new Set(others.flatMap((s) => s.actions))].sort()).toEqual(
      [
        // The sweeper's two listings (docs/cost-bounds.md): ListQueues has no resource type,
        // ListTasks is limited by its ecs:cluster condition instead.
        'ecs:ListTasks',
        'sqs:ListQueues',
        // A task's public IPv4 (issue 10, point 1): the controller consumer only (test/cdk/game-servers.test.ts).
        'ec2:DescribeNetworkInterfaces',
        // A configuration's task definition: the configuration PUT, and the functions that start
        // servers once the deployed template changed (test/cdk/game-servers.test.ts).
        'ecs:DescribeTaskDefinition',
        'ecs:RegisterTaskDefinition',
        // Queue ages for operators (GET /v1/admin/queues): GetMetricData has no resource type.
        'cloudwatch:GetMetricData',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    for (const listing of others.filter((s) => s.actions.includes('ecs:ListTasks'))) {
      expect(listing.condition).toEqual({ ArnEquals: { 'ecs:cluster': expect.anything() } });
    }
  });

  it('no AWS managed policy is attached to any role', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('reports no unacknowledged finding on the stack', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(
      report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
  });

  it('fails synthesis on an unacknowledged error', () => {
    const badApp = newApp({ stage: 'nagged', ...auth });
    const badStack = addRoomkeeper(badApp);
    new sqs.Queue(badStack, 'PlaintextQueue'); // no DLQ, no TLS enforcement
    // In memory (as here) the thrown error carries the report; `cdk synth` prints it and exits 1.
    expect(() => Template.fromStack(badStack)).toThrow(/AwsSolutions-SQS4/);
    expect(fs.readFileSync(path.join(badApp.outdir, 'validation-report.json'), 'utf8')).toMatch(/AwsSolutions-SQS3/);
  });
});

describe('route guards', () => {
  const getRoomEntry = deployable[0]!.entry;

  it('a public /health route skips the authorizer; a pinned env passes cdk-nag too', () => {
    const healthApp = newApp({ stage: 'health' }); // no auth context: placeholders
    const healthStack = addRoomkeeper(healthApp, {
      // A pinned environment (as `cdk synth` with a profile has) renders ARNs with literals:
      // every acknowledgement must still match.
      env: { account: '123456789012', region: 'eu-west-1' },
      routes: [{ id: 'health', method: 'GET', path: '/health', entry: getRoomEntry, auth: 'public' }] as never,
    });
    // Synthesis prints the expected placeholder warning on stderr; keep the test output clean.
    const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const healthTemplate = Template.fromStack(healthStack);
      healthTemplate.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'GET /health',
        AuthorizationType: 'NONE',
      });
      Annotations.fromStack(healthStack).hasWarning('*', Match.stringLikeRegexp('placeholders are used'));
      expect(stderr.mock.calls.flat().join('\n')).toMatch(/placeholders are used/);
    } finally {
      stderr.mockRestore();
    }
  });

  it.each([
    [
      'a public route other than /health',
      { path: '/v1/rooms', auth: 'public' },
      /only \/health, \/console, \/console\/\{path\+\} may skip/,
    ],
    ['a /v1/dev/ route not marked localOnly', { path: '/v1/dev/reset', auth: 'jwt' }, /local-only dev route/],
    ['a route slower than API Gateway waits', { path: '/v1/slow', auth: 'jwt', timeoutS: 60 }, /exceeds API Gateway/],
  ] as const)('%s is refused at synthesis', (_name, route, message) => {
    const guardApp = newApp({ stage: 'guard', ...auth });
    const bad = { id: 'bad', method: 'POST', entry: getRoomEntry, ...route };
    expect(() => addRoomkeeper(guardApp, { routes: [bad] as never })).toThrow(message);
  });
});

describe('ProjectFunction bindings', () => {
  it.each(queueIds)(
    'bindQueue(%s): send sets the URL variable and grants sending; consume maps the queue',
    (queueId) => {
      const bindApp = newApp();
      const bindStack = new Stack(bindApp, 'Bindings');
      const queue = new ProjectQueue(bindStack, 'Queue', { definition: queueDefinitions[queueId], namePrefix: 'bind' });
      const entry = deployable[0]!.entry;
      const sender = new ProjectFunction(bindStack, 'Sender', { entry }).bindQueue(queue, 'send');
      const consumer = new ProjectFunction(bindStack, 'Consumer', { entry }).bindQueue(queue, 'consume');
      const holder = new ProjectFunction(bindStack, 'UrlHolder', { entry }).bindQueue(queue, 'url');
      const bindTemplate = Template.fromStack(bindStack);
      const queueLogicalId = bindStack.getLogicalId(queue.queue.node.defaultChild as never);

      const senderProps = bindTemplate.toJSON().Resources[logicalId(bindStack, sender)].Properties as Json;
      expect(senderProps.Environment.Variables[queueUrlVariable(queueId)]).toEqual({ Ref: queueLogicalId });
      const sent = statementsOf(bindTemplate, bindStack, sender).filter((s) => s.actions.includes('sqs:SendMessage'));
      expect(sent).toHaveLength(1);
      expect(sent[0]!.resources).toEqual([{ 'Fn::GetAtt': [queueLogicalId, 'Arn'] }]);
      expect(statementsOf(bindTemplate, bindStack, sender).flatMap((s) => s.actions)).not.toContain(
        'sqs:ReceiveMessage',
      );

      // `url` (a function that hands the URL to game servers): the variable, and no permission at all.
      const holderProps = bindTemplate.toJSON().Resources[logicalId(bindStack, holder)].Properties as Json;
      expect(holderProps.Environment.Variables[queueUrlVariable(queueId)]).toEqual({ Ref: queueLogicalId });
      expect(
        statementsOf(bindTemplate, bindStack, holder)
          .flatMap((s) => s.actions)
          .filter((a) => a.startsWith('sqs:')),
      ).toEqual([]);

      bindTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: logicalId(bindStack, consumer) },
        EventSourceArn: { 'Fn::GetAtt': [queueLogicalId, 'Arn'] },
        BatchSize: queueDefinitions[queueId].batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    },
  );
});

/**
 * CloudFormation takes at most 500 resources in a stack
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html;
 * synthesis fails with TooManyResourcesInStack past it). A route costs seven (function, role,
 * policy, log group, API route, integration, permission) and no alarm of its own: this bound
 * fails while several routes' worth of room is left, not at the deploy that crosses the limit.
 */
describe('CloudFormation limits', () => {
  it('the stack declares fewer than 450 resources', () => {
    expect(Object.keys(template.toJSON().Resources as Json).length).toBeLessThan(450);
  });
});
