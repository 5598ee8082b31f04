import { Template } from 'aws-cdk-lib/assertions';
import {
  liveActionRoutes,
  liveEndpointVariable,
  liveRouteSelection,
  liveStageName,
  roomTapStream,
} from '../../cdk/lib/constructs/live-api';
import { alarmThresholds } from '../../cdk/lib/constructs/operations';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import { parseConfig } from '../../core/infra/config';
import { createTableInput } from '../../core/infra/table';
import {
  auth,
  gameImage,
  logicalId,
  render,
  renderedEnvironment,
  statementsOf,
  useScratch,
  type Json,
} from './support';

/**
 * Live sessions, deployed (cdk/lib/constructs/live-api.ts): the WebSocket API, the table's
 * stream and its consumer, their grants, outputs and alarms. cdk-nag runs in test/cdk/stack.test.ts.
 */
const { newApp, cleanUp } = useScratch();
let stack: RoomkeeperStack;
let template: Template;
let resources: Json;

beforeAll(() => {
  stack = addRoomkeeper(newApp({ stage: 'live', ...auth, gameImage }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Json;
});
afterAll(cleanUp);

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

/** Lambda's synchronous payload limit and DynamoDB's item size limit. */
const lambdaPayloadBytes = 6 * 1024 * 1024;
const maxItemBytes = 400 * 1024;

describe('the WebSocket API', () => {
  it('selects routes by the frame’s action and sends every route to the socket function', () => {
    const apiId = idOf(stack.live.api);
    expect(resources[apiId].Properties).toMatchObject({
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: liveRouteSelection,
    });
    const routes = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: { Ref: apiId } } }),
    );
    expect(routes.map((r) => r.Properties.RouteKey as string).sort()).toEqual(
      ['$connect', '$disconnect', '$default', ...liveActionRoutes].sort(),
    );
    const socketArn = { 'Fn::GetAtt': [logicalId(stack, stack.live.socket), 'Arn'] };
    for (const route of routes) {
      const integrationId = (route.Properties.Target['Fn::Join'][1] as unknown[])[1] as Json;
      const integration = resources[integrationId.Ref as string].Properties as Json;
      expect(integration.IntegrationType).toBe('AWS_PROXY');
      expect(JSON.stringify(integration.IntegrationUri)).toContain(JSON.stringify(socketArn));
    }
  });

  it('one stage, throttled, with access logs that leave out the token (query string), headers and bodies', () => {
    const stages = Object.values(
      template.findResources('AWS::ApiGatewayV2::Stage', { Properties: { ApiId: { Ref: idOf(stack.live.api) } } }),
    );
    expect(stages).toHaveLength(1);
    const props = stages[0]!.Properties;
    expect(props.StageName).toBe(liveStageName);
    expect(props.AutoDeploy).toBe(true);
    expect(props.DefaultRouteSettings).toEqual({
      ThrottlingBurstLimit: stack.scale.apiThrottle.burstLimit,
      ThrottlingRateLimit: stack.scale.apiThrottle.rateLimit,
    });
    const logGroupId = props.AccessLogSettings.DestinationArn['Fn::GetAtt'][0] as string;
    expect(resources[logGroupId].Properties.RetentionInDays).toBeGreaterThan(0);
    const format = JSON.parse(props.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format.connectionId).toBe('$context.connectionId');
    expect(Object.values(format).join(' ')).not.toMatch(/header|querystring|token|body|authorization/i);
  });

  it('API Gateway has the account’s CloudWatch role that WebSocket stage logs need, kept when the stack goes', () => {
    const accounts = template.findResources('AWS::ApiGateway::Account');
    expect(Object.values(accounts)).toHaveLength(1);
    const [account] = Object.values(accounts) as Json[];
    expect(account!.DeletionPolicy).toBe('Retain');
    const roleId = account!.Properties.CloudWatchRoleArn['Fn::GetAtt'][0] as string;
    expect(resources[roleId].DeletionPolicy).toBe('Retain');
    expect(resources[roleId].Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({
      Service: 'apigateway.amazonaws.com',
    });
    const stageId = idOf(stack.live.stage);
    expect(resources[stageId].DependsOn).toEqual(expect.arrayContaining([Object.keys(accounts)[0]]));
  });

  it('outputs LiveUrl: wss:// on the live stage', () => {
    const output = template.toJSON().Outputs.LiveUrl as Json;
    expect(render(output.Value)).toBe(
      `wss://\${${idOf(stack.live.api)}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/${liveStageName}`,
    );
  });
});

describe('the table stream and its consumer', () => {
  it('the table streams new images, as the local table does (core/infra/table.ts)', () => {
    const [table] = Object.values(template.findResources('AWS::DynamoDB::GlobalTable')) as Json[];
    expect(table!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(createTableInput('any').StreamSpecification).toMatchObject({
      StreamEnabled: true,
      StreamViewType: 'NEW_IMAGE',
    });
  });

  it('the room taps consumer reads room items only, in batches that fit one invocation, with bounded retries and a failure queue', () => {
    const mappings = Object.values(
      template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: logicalId(stack, stack.live.taps) } },
      }),
    );
    expect(mappings).toHaveLength(1);
    const props = mappings[0]!.Properties as Json;
    expect(props.EventSourceArn).toEqual({ 'Fn::GetAtt': [idOf(stack.table), 'StreamArn'] });
    expect(props.StartingPosition).toBe('LATEST');
    expect(props.FilterCriteria.Filters.map((f: Json) => JSON.parse(f.Pattern as string))).toEqual([
      { dynamodb: { Keys: { sk: { S: ['ROOM'] } } } },
    ]);
    // The largest items still fit Lambda's synchronous payload, with room for the record's envelope.
    expect(props.BatchSize).toBeGreaterThanOrEqual(1);
    expect(props.BatchSize * maxItemBytes).toBeLessThanOrEqual((lambdaPayloadBytes * 2) / 3);
    expect(props.BisectBatchOnFunctionError).toBe(true);
    expect(props.MaximumRetryAttempts).toBe(roomTapStream.retryAttempts);
    expect(props.MaximumRetryAttempts).toBeLessThanOrEqual(3);
    expect(props.MaximumRecordAgeInSeconds).toBeGreaterThanOrEqual(60);
    expect(props.ParallelizationFactor).toBe(roomTapStream.parallelizationFactor);
    expect(props.DestinationConfig).toEqual({
      OnFailure: { Destination: { 'Fn::GetAtt': [idOf(stack.live.tapFailures), 'Arn'] } },
    });
    const queue = resources[idOf(stack.live.tapFailures)].Properties as Json;
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.FifoQueue).toBeUndefined();
  });

  it('the consumer reads the stream of this table only, and sends its failures to that queue only', () => {
    const statements = statementsOf(template, stack, stack.live.taps);
    const stream = statements.filter((s) =>
      s.actions.some((a) => a.startsWith('dynamodb:') && /Stream|Shard|Records/.test(a)),
    );
    expect(stream.flatMap((s) => s.actions).sort()).toEqual(
      ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].sort(),
    );
    for (const s of stream) expect(s.resources).toEqual([{ 'Fn::GetAtt': [idOf(stack.table), 'StreamArn'] }]);
    const sends = statements.filter((s) => s.actions.includes('sqs:SendMessage'));
    expect(sends.flatMap((s) => s.resources)).toEqual([{ 'Fn::GetAtt': [idOf(stack.live.tapFailures), 'Arn'] }]);
  });
});

describe('posting to sockets', () => {
  it.each(['socket', 'taps'] as const)(
    '%s: ManageConnections on this API’s live stage only, and LIVE_ENDPOINT its management endpoint',
    (name) => {
      const fn = stack.live[name];
      const manage = statementsOf(template, stack, fn).filter((s) =>
        s.actions.includes('execute-api:ManageConnections'),
      );
      expect(manage.flatMap((s) => s.actions)).toEqual(['execute-api:ManageConnections']);
      expect(manage.flatMap((s) => s.resources.map(render))).toEqual([
        `arn:\${AWS::Partition}:execute-api:\${AWS::Region}:\${AWS::AccountId}:\${${idOf(stack.live.api)}}/${liveStageName}/*/@connections/*`,
      ]);
      const env = renderedEnvironment(template, logicalId(stack, fn));
      expect(env[liveEndpointVariable]).toBe(
        `https://\${${idOf(stack.live.api)}}.execute-api.\${AWS-Region}.\${AWS-URLSuffix}/${liveStageName}`,
      );
      expect(() => parseConfig(env)).not.toThrow();
    },
  );

  it('no other function may manage connections than those that post to sockets', () => {
    // Routes that post frames (an invite to the invited account's sockets) declare the need.
    const posting = deployableRoutes()
      .filter((route) => route.needs?.includes('postToSockets'))
      .map((route) => stack.routeFunctions.get(route.id)!);
    expect(posting.length).toBeGreaterThan(0);
    const live = new Set([stack.live.socket, stack.live.taps, ...posting].map((fn) => idOf(fn.role)));
    const owners = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('execute-api:ManageConnections'))
      .flatMap(([, p]) => (p.Properties.Roles as Json[]).map((r) => r.Ref as string));
    expect(new Set(owners)).toEqual(live);
  });
});

describe('alarms', () => {
  const alarmNames = () =>
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmName as string);

  it('both functions share the live sessions’ function alarms, and the stream has its own', () => {
    expect(alarmNames()).toEqual(
      expect.arrayContaining(
        ['Errors', 'Throttles', 'Duration'].map((kind) => `${stack.namePrefix}-Functions-Live-1-${kind}`),
      ),
    );
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      if (!(alarm.Properties.AlarmName as string).includes('-Functions-Live-')) continue;
      const watched = (alarm.Properties.Metrics as Json[])
        .filter((m) => m.MetricStat)
        .map((m) => m.MetricStat.Metric.Dimensions[0].Value.Ref as string);
      expect(watched.sort()).toEqual([stack.live.socket, stack.live.taps].map((fn) => logicalId(stack, fn)).sort());
      expect(alarm.Properties.AlarmDescription).toMatch(/LiveSocket.*RoomTaps/);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${stack.namePrefix}-Live-TapFailures`,
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: alarmThresholds.tapFailures,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${stack.namePrefix}-Live-TapDelay`,
      MetricName: 'IteratorAge',
      Threshold: alarmThresholds.tapIteratorAgeS * 1000,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${stack.namePrefix}-Live-IntegrationErrors`,
      Namespace: 'AWS/ApiGateway',
      MetricName: 'IntegrationError',
    });
  });
});
