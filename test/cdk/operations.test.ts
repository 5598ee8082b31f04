import * as fs from 'node:fs';
import * as path from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { Construct } from 'constructs';
import {
  alarmGroups,
  alarmThresholds,
  maxAlarmsPerWidget,
  maxMetricsPerAlarm,
  Operations,
} from '../../cdk/lib/constructs/operations';
import { ProjectFunction } from '../../cdk/lib/constructs/project-function';
import {
  signingKeyEntry,
  signingKeyResourceType,
  signingKeyServiceTimeout,
} from '../../cdk/lib/constructs/token-signing-key';
import { pathInStack } from '../../cdk/lib/constructs/stack-part';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import type { RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import { spawnMetrics, versionMetrics } from '../../core/infra/metrics';
import { auth, gameImage, logicalId, render, repoRoot, statementsOf, useScratch, type Json } from './support';

/** Issue 10, points 3 (signing key at deploy), 9 (alarms, dashboard) and 10 (offline validation). */
const { newApp, cleanUp } = useScratch();

let stack: RoomkeeperStack;
let template: Template;
let templatePath: string;
let alarms: Json[];

beforeAll(() => {
  const app = newApp({ stage: 'ops', ...auth, gameImage });
  stack = addRoomkeeper(app);
  // Synthesis runs cdk-nag and the CloudFormation validator (cdk.json makes its findings errors).
  template = Template.fromStack(stack);
  templatePath = path.join(app.outdir, stack.templateFile);
  alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Json);
});
afterAll(cleanUp);

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('the token signing key (point 3)', () => {
  it('a Custom::TokenSigningKey resource, served by the provisioner function itself, names the signing secret', () => {
    const resources = template.findResources(signingKeyResourceType);
    expect(Object.values(resources)).toHaveLength(1);
    const [resource] = Object.values(resources) as Json[];
    expect(resource!.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [logicalId(stack, stack.signingKey.provisioner), 'Arn'] },
      ServiceTimeout: String(signingKeyServiceTimeout.toSeconds()),
      SecretId: { Ref: idOf(stack.tokenSigningKey) },
    });
    // Nothing on delete, and no replacement on update (the handler keeps the physical id).
    expect(resource!.DeletionPolicy).toBe('Delete');
  });

  it('the provisioner runs lambdas/custom-resource/token-signing-key.ts, bundled like every other function', () => {
    expect(fs.existsSync(path.join(repoRoot, signingKeyEntry))).toBe(true);
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Role: { 'Fn::GetAtt': [idOf(stack.signingKey.provisioner.role), 'Arn'] },
    });
  });

  it('least privilege: the provisioner may read and put the value of that one secret, nothing else', () => {
    const statements = statementsOf(template, stack, stack.signingKey.provisioner);
    const secretStatements = statements.filter((s) => s.actions.some((a) => a.startsWith('secretsmanager:')));
    expect(secretStatements).toEqual([
      expect.objectContaining({
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
        resources: [{ Ref: idOf(stack.tokenSigningKey) }],
        effect: 'Allow',
      }),
    ]);
    const others = statements.filter((s) => !secretStatements.includes(s)).flatMap((s) => s.actions);
    expect(others.every((a) => a.startsWith('logs:') || a.startsWith('xray:'))).toBe(true);
  });

  it('every function that reads the key is created after the key is in the secret', () => {
    const resourceId = stack.getLogicalId(stack.signingKey.resource.node.defaultChild as never);
    const readers = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.TOKEN_SIGNING_JWK_SECRET_ARN !== undefined,
    );
    expect(readers.length).toBeGreaterThanOrEqual(2);
    for (const [, fn] of readers) expect(fn.DependsOn).toContain(resourceId);
  });

  it('the secret is still created with a placeholder (Secrets Manager needs a value) and the stack outputs the public key set', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.anyValue() });
    template.hasOutput('TokenSigningPublicJwks', {
      Value: { 'Fn::GetAtt': [stack.getLogicalId(stack.signingKey.resource.node.defaultChild as never), 'PublicJwks'] },
    });
  });
});

/**
 * Every custom resource of the template (`AWS::CloudFormation::CustomResource` or `Custom::*`)
 * names a `ServiceTimeout` CloudFormation accepts (1 to 3,600 s) and far below its default
 * hour, and long enough for its Lambda handler to answer once.
 */
describe('custom resources', () => {
  /** A quarter of CloudFormation's default (and maximum) hour. */
  const maxServiceTimeoutS = 15 * 60;

  it('every custom resource has a ServiceTimeout of at least its handler’s timeout and at most 15 minutes', () => {
    const resources = template.toJSON().Resources as Record<string, Json>;
    const custom = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::CloudFormation::CustomResource' || (r.Type as string).startsWith('Custom::'),
    );
    expect(custom.length).toBeGreaterThanOrEqual(1);
    for (const [id, resource] of custom) {
      const timeoutS = Number(resource.Properties.ServiceTimeout);
      expect({ id, integer: Number.isInteger(timeoutS) }).toEqual({ id, integer: true });
      expect(timeoutS).toBeGreaterThanOrEqual(1);
      expect(timeoutS).toBeLessThanOrEqual(maxServiceTimeoutS);
      const handler = resources[(resource.Properties.ServiceToken as Json)['Fn::GetAtt']?.[0] as string];
      if (handler?.Type === 'AWS::Lambda::Function') {
        expect(timeoutS).toBeGreaterThanOrEqual(handler.Properties.Timeout as number);
      }
    }
  });
});

/** The alarm watching `metricName` (and matching `dimensions`), exactly one; `named`: only alarms whose name has it. */
function alarmOn(metricName: string, dimensions: Json = {}, named = ''): Json {
  const found = alarms.filter((a) => {
    if (!(a.AlarmName as string).includes(named)) return false;
    const metrics: Json[] = a.Metrics
      ? a.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => ({
          ...m.MetricStat.Metric,
          Dimensions: m.MetricStat.Metric.Dimensions,
        }))
      : [{ MetricName: a.MetricName, Namespace: a.Namespace, Dimensions: a.Dimensions }];
    return metrics.some(
      (m) =>
        m.MetricName === metricName &&
        Object.entries(dimensions).every(([name, value]) =>
          (m.Dimensions as Json[]).some((d) => d.Name === name && JSON.stringify(d.Value) === JSON.stringify(value)),
        ),
    );
  });
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The expression a metric-math alarm watches (its one query that returns data). */
function watchedExpression(alarm: Json): string {
  const watched = (alarm.Metrics as Json[]).filter((m) => m.ReturnData !== false);
  expect(watched).toHaveLength(1);
  return watched[0]!.Expression as string;
}

/** The id, in a metric-math alarm, of the query for `metricName` of the function with logical id `functionId`. */
function queryId(alarm: Json, metricName: string, functionId: string): string {
  const query = (alarm.Metrics as Json[]).find(
    (m) => m.MetricStat?.Metric.MetricName === metricName && m.MetricStat.Metric.Dimensions[0].Value.Ref === functionId,
  );
  expect(query).toBeDefined();
  return query!.Id as string;
}

/** The synthesized dashboard body, its tokens rendered as `${LogicalId.Arn}`-style placeholders, parsed. */
function dashboardBody(): { body: string; widgets: Json[] } {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = render(dashboards[0]!.Properties.DashboardBody);
  return { body, widgets: (JSON.parse(body) as { widgets: Json[] }).widgets };
}

describe('alarms (point 9)', () => {
  const topicId = () => idOf(stack.operations.topic);

  it('every alarm notifies the alarm topic; all but the NotRunning ones treat missing data as fine', () => {
    expect(alarms.length).toBeGreaterThan(20);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId() }]);
      if ((alarm.AlarmName as string).endsWith('-NotRunning')) continue;
      expect(alarm.TreatMissingData).toBe('notBreaching');
      expect(alarm.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    }
  });

  it.each([
    ['room sweeper', () => stack.sweeper],
    ['pool keeper', () => stack.poolKeeper],
  ])('the %s: alarmed when it fails every minute for 3 minutes, and when it has not run in 5', (_, fn) => {
    const dims = { FunctionName: { Ref: logicalId(stack, fn()) } };
    expect(alarmOn('Errors', dims, '-Schedule-')).toMatchObject({
      Namespace: 'AWS/Lambda',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: alarmThresholds.scheduleFailingMinutes,
      DatapointsToAlarm: alarmThresholds.scheduleFailingMinutes,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarmOn('Invocations', dims, '-Schedule-')).toMatchObject({
      Namespace: 'AWS/Lambda',
      Statistic: 'Sum',
      Period: alarmThresholds.scheduleSilentMinutes * 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      // No invocation publishes no data point: missing data is the failure this alarm is for.
      TreatMissingData: 'breaching',
    });
  });

  it('only the scheduled functions have the schedule alarms', () => {
    const scheduled = alarms.filter((a) => (a.AlarmName as string).includes('-Schedule-'));
    const watched = new Set(scheduled.map((a) => JSON.stringify(a.Dimensions)));
    expect([...watched].sort()).toEqual(
      [stack.sweeper, stack.poolKeeper]
        .map((fn) => JSON.stringify([{ Name: 'FunctionName', Value: { Ref: logicalId(stack, fn) } }]))
        .sort(),
    );
    expect(scheduled).toHaveLength(4);
  });

  it.each(['controllerRequests'])('queue %s: dead letters and oldest message age', (queueId) => {
    const queue = stack.queues[queueId as keyof typeof stack.queues];
    const dlq = alarmOn('ApproximateNumberOfMessagesVisible', {
      QueueName: { 'Fn::GetAtt': [idOf(queue.deadLetterQueue), 'QueueName'] },
    });
    expect(dlq).toMatchObject({ Namespace: 'AWS/SQS', Threshold: alarmThresholds.deadLetterMessages, Period: 60 });
    const age = alarmOn('ApproximateAgeOfOldestMessage', {
      QueueName: { 'Fn::GetAtt': [idOf(queue.queue), 'QueueName'] },
    });
    expect(age).toMatchObject({ Namespace: 'AWS/SQS', Threshold: alarmThresholds.oldestMessageAgeS });
  });

  it('every queue has both alarms', () => {
    for (const queue of Object.values(stack.queues)) {
      alarmOn('ApproximateNumberOfMessagesVisible', {
        QueueName: { 'Fn::GetAtt': [idOf(queue.deadLetterQueue), 'QueueName'] },
      });
      alarmOn('ApproximateAgeOfOldestMessage', { QueueName: { 'Fn::GetAtt': [idOf(queue.queue), 'QueueName'] } });
    }
  });

  it('every Lambda function is in one Errors, one Throttles and one Duration alarm of its stack part, named in its description', () => {
    const functions = Operations.functionsOf(stack);
    expect(functions.length).toBeGreaterThan(10);
    expect(functions.map((fn) => logicalId(stack, fn)).sort()).toEqual(
      Object.keys(template.findResources('AWS::Lambda::Function')).sort(),
    );
    for (const fn of functions) {
      const id = logicalId(stack, fn);
      const dims = { FunctionName: { Ref: id } };
      const label = pathInStack(fn).join('-');
      const errors = alarmOn('Errors', dims, '-Functions-');
      expect(errors).toMatchObject({ Threshold: alarmThresholds.functionErrors, EvaluationPeriods: 1 });
      expect(watchedExpression(errors)).toContain(`FILL(${queryId(errors, 'Errors', id)}, 0)`);
      expect(errors.AlarmDescription).toContain(label);
      const throttles = alarmOn('Throttles', dims, '-Functions-');
      expect(throttles).toMatchObject({ Threshold: alarmThresholds.functionThrottles });
      expect(watchedExpression(throttles)).toContain(`FILL(${queryId(throttles, 'Throttles', id)}, 0)`);
      expect(throttles.AlarmDescription).toContain(label);
      // p99 divided by this function's own timeout, against a share of it.
      const duration = alarmOn('Duration', dims, '-Functions-');
      const timeoutMs = (template.toJSON().Resources[id].Properties.Timeout as number) * 1000;
      expect(duration).toMatchObject({
        Threshold: alarmThresholds.durationShareOfTimeout,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      expect(watchedExpression(duration)).toContain(`FILL(${queryId(duration, 'Duration', id)}, 0) / ${timeoutMs}`);
      expect(duration.Metrics).toContainEqual(
        expect.objectContaining({ MetricStat: expect.objectContaining({ Stat: 'p99', Period: 300 }) }),
      );
      expect(duration.AlarmDescription).toContain(label);
    }
  });

  it('function alarms: at most 10 metrics each (CloudWatch’s limit for metric math), one run per 10 functions of a part', () => {
    const functionAlarms = alarms.filter((a) => (a.AlarmName as string).includes('-Functions-'));
    for (const alarm of functionAlarms) {
      const stats = (alarm.Metrics as Json[]).filter((m) => m.MetricStat);
      expect(stats.length).toBeGreaterThanOrEqual(1);
      expect(stats.length).toBeLessThanOrEqual(maxMetricsPerAlarm);
      expect((alarm.Metrics as Json[]).filter((m) => m.ReturnData !== false)).toHaveLength(1);
      expect((alarm.AlarmDescription as string).length).toBeLessThanOrEqual(1024);
    }
    const routes = functionAlarms.filter((a) => (a.AlarmName as string).includes('-Functions-Routes-'));
    expect(routes).toHaveLength(3 * Math.ceil(stack.routeFunctions.size / maxMetricsPerAlarm));
    const watched = routes
      .filter((a) => (a.AlarmName as string).endsWith('-Errors'))
      .flatMap((a) => (a.Metrics as Json[]).filter((m) => m.MetricStat))
      .map((m) => m.MetricStat.Metric.Dimensions[0].Value.Ref as string);
    expect(watched.sort()).toEqual([...stack.routeFunctions.values()].map((fn) => logicalId(stack, fn)).sort());
  });

  it('API: 5xx and p95 latency', () => {
    const api = { ApiId: { Ref: idOf(stack.api) } };
    expect(alarmOn('5xx', api)).toMatchObject({ Namespace: 'AWS/ApiGateway', Threshold: alarmThresholds.api5xx });
    expect(alarmOn('Latency', api)).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p95',
      Threshold: alarmThresholds.apiLatencyP95Ms,
    });
  });

  it('DynamoDB: throttled reads plus throttled writes of the table', () => {
    const table = { TableName: { Ref: idOf(stack.table) } };
    const alarm = alarmOn('ReadThrottleEvents', table);
    expect(alarmOn('WriteThrottleEvents', table)).toBe(alarm);
    expect(alarm.Threshold).toBe(alarmThresholds.dynamodbThrottles);
    expect(alarm.Metrics).toContainEqual(expect.objectContaining({ Expression: 'FILL(r, 0) + FILL(w, 0)' }));
  });

  it('spawns: the platform’s SpawnFailures and SpawnTimeouts metrics, per deployment', () => {
    const service = { service: 'roomkeeper-ops' };
    expect(alarmOn(spawnMetrics.failed, service)).toMatchObject({
      Namespace: 'Roomkeeper',
      Statistic: 'Sum',
      Threshold: alarmThresholds.spawnFailures,
    });
    expect(alarmOn(spawnMetrics.timedOut, service)).toMatchObject({
      Namespace: 'Roomkeeper',
      Threshold: alarmThresholds.spawnTimeouts,
    });
    // The functions emit under the namespace and service the alarms watch.
    const env = template.toJSON().Resources[logicalId(stack, stack.routeFunctions.get('createRoom')!)].Properties
      .Environment.Variables as Json;
    expect(env).toMatchObject({
      POWERTOOLS_METRICS_NAMESPACE: 'Roomkeeper',
      POWERTOOLS_SERVICE_NAME: 'roomkeeper-ops',
    });
  });

  it('versions: the platform’s ProtocolMismatches metric, per deployment', () => {
    expect(alarmOn(versionMetrics.protocolMismatches, { service: 'roomkeeper-ops' })).toMatchObject({
      Namespace: 'Roomkeeper',
      Statistic: 'Sum',
      Threshold: alarmThresholds.protocolMismatches,
    });
  });

  it('Fargate: On-Demand vCPU in use as a share of the account quota (AWS/Usage with SERVICE_QUOTA)', () => {
    const alarm = alarmOn('ResourceCount', {
      Service: 'Fargate',
      Type: 'Resource',
      Resource: 'vCPU',
      Class: 'Standard/OnDemand',
    });
    expect(alarm.Threshold).toBe(alarmThresholds.fargateQuotaPercent);
    expect(alarm.Metrics).toContainEqual(
      expect.objectContaining({ Expression: 'vcpu / SERVICE_QUOTA(vcpu) * 100', ReturnData: true }),
    );
    expect(alarm.Metrics).toContainEqual(
      expect.objectContaining({
        MetricStat: expect.objectContaining({ Metric: expect.objectContaining({ Namespace: 'AWS/Usage' }) }),
      }),
    );
  });

  it('the alarm topic is encrypted with a rotated key CloudWatch may use, and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    template.resourceCountIs('AWS::Budgets::Budget', 0);
  });

  it('the dashboard shows every alarm and the API, spawn, Fargate, Lambda, table and queue metrics', () => {
    const { body, widgets } = dashboardBody();
    // Every group has its widget.
    const titles = widgets.filter((w) => w.type === 'alarm').map((w) => w.properties.title);
    expect(titles).toEqual(alarmGroups.map((group) => `Alarms: ${group}`));
    for (const metric of [
      '5xx',
      'Latency',
      spawnMetrics.failed,
      spawnMetrics.timedOut,
      'ResourceCount',
      'RunningTaskCount',
      'Errors',
      'Throttles',
      'Duration',
      'ReadThrottleEvents',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      'SERVICE_QUOTA',
    ]) {
      expect(body).toContain(metric);
    }
  });

  it('the dashboard body keeps to CloudWatch’s limits: ≤ 100 alarms per alarm widget, every alarm in one', () => {
    const { widgets } = dashboardBody();
    const listed = widgets.filter((w) => w.type === 'alarm').flatMap((w) => w.properties.alarms as string[]);
    for (const widget of widgets.filter((w) => w.type === 'alarm')) {
      expect(widget.properties.alarms.length).toBeGreaterThanOrEqual(1);
      expect(widget.properties.alarms.length).toBeLessThanOrEqual(maxAlarmsPerWidget);
    }
    const stackAlarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).map((id) => `\${${id}.Arn}`);
    expect([...listed].sort()).toEqual([...stackAlarms].sort());
  });

  it('the dashboard body keeps to CloudWatch’s limits: ≤ 500 widgets, ≤ 500 metrics per graph, ≤ 2,500 in all', () => {
    const { widgets } = dashboardBody();
    expect(widgets.length).toBeLessThanOrEqual(500);
    const graphs = widgets.filter((w) => w.type === 'metric');
    const metricsOf = (w: Json) => (w.properties.metrics as unknown[]).length;
    for (const graph of graphs) expect(metricsOf(graph)).toBeLessThanOrEqual(500);
    expect(graphs.reduce((sum, w) => sum + metricsOf(w), 0)).toBeLessThanOrEqual(2_500);
  });

  it('functions added cost no alarm until a run of 10 is full: 25 functions, 3 runs (10, 10, 5) of 3 alarms', () => {
    const scratch = new Stack(newApp(), 'ManyFunctions');
    const operations = new Operations(scratch, 'Operations', {
      namePrefix: 'many',
      api: new HttpApi(scratch, 'Api'),
      table: new dynamodb.TableV2(scratch, 'Table', {
        partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      }),
      queues: [],
      cluster: new ecs.Cluster(scratch, 'Cluster'),
      functions: Array.from(
        { length: 25 },
        (_, i) => new ProjectFunction(new Construct(scratch, `Fn${i}`), 'Function', { entry: signingKeyEntry }),
      ),
    });
    const functionAlarms = operations.alarms
      .map((alarm) => scratch.resolve((alarm.node.defaultChild as cloudwatch.CfnAlarm)._toCloudFormation()) as Json)
      .map((cfn) => Object.values(cfn.Resources as Json)[0].Properties as Json)
      .filter((alarm) => (alarm.AlarmName as string).startsWith('many-Functions-'));
    expect(functionAlarms.map((a) => [a.AlarmName, (a.Metrics as Json[]).filter((m) => m.MetricStat).length])).toEqual(
      [1, 2, 3].flatMap((run) =>
        ['Errors', 'Throttles', 'Duration'].map((kind) => [`many-Functions-Platform-${run}-${kind}`, run < 3 ? 10 : 5]),
      ),
    );
    // The last run names its five functions, and only them.
    const last = functionAlarms.find((a) => a.AlarmName === 'many-Functions-Platform-3-Errors')!;
    expect(last.AlarmDescription).toBe(
      `Unhandled errors or timeouts (Errors summed) of ${[20, 21, 22, 23, 24].map((i) => `Fn${i}-Function`).join(', ')}.`,
    );
  });

  it('with -c alarmEmail and -c monthlyBudgetUsd: an email subscription and a monthly cost budget on the topic', () => {
    const app = newApp({ stage: 'budget', ...auth, gameImage, alarmEmail: 'ops@example.com', monthlyBudgetUsd: '250' });
    const budgeted = Template.fromStack(addRoomkeeper(app));
    budgeted.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: ['budgets.amazonaws.com', 'cloudwatch.amazonaws.com'] } }),
        ]),
      },
    });
    budgeted.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    budgeted.hasResourceProperties('AWS::Budgets::Budget', {
      Budget: { BudgetType: 'COST', TimeUnit: 'MONTHLY', BudgetLimit: { Amount: 250, Unit: 'USD' } },
      NotificationsWithSubscribers: Match.arrayWith([
        Match.objectLike({ Subscribers: [{ SubscriptionType: 'SNS', Address: Match.anyValue() }] }),
      ]),
    });
  });

  it('refuses a budget or an email that is not one', () => {
    expect(() => addRoomkeeper(newApp({ stage: 'bad', ...auth, gameImage, monthlyBudgetUsd: 'lots' }))).toThrow(
      /monthlyBudgetUsd/,
    );
    expect(() => addRoomkeeper(newApp({ stage: 'bad2', ...auth, gameImage, alarmEmail: 'ops' }))).toThrow(/alarmEmail/);
  });
});

describe('offline validation (point 10)', () => {
  /** The validator aws-cdk-lib ships (and runs at synthesis), loaded from aws-cdk-lib's own dependencies. */
  function validator() {
    const cdkLib = path.dirname(require.resolve('aws-cdk-lib/package.json'));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(require.resolve('@aws/cloudformation-validate', { paths: [cdkLib] })) as {
      CompositeEngine: new (config: Json) => {
        validateTemplate: (
          t: unknown,
          c: Json,
        ) => { diagnostics: { ruleId: string; severity: string; message: string }[] };
        free: () => void;
      };
      TemplateContent: new (text: string, file: string) => unknown;
    };
  }

  it('the template passes every rule of the CloudFormation validator, none excluded: zero errors', () => {
    const cfv = validator();
    const rulesDir = path.join(path.dirname(require.resolve('aws-cdk-lib/package.json')), 'core/lib/validation/rules');
    // The Rego rules aws-cdk-lib adds to the engine's own, all of them whatever the resource types.
    const regoRules = fs
      .readdirSync(rulesDir)
      .filter((f) => f.endsWith('.rego'))
      .map((f) => ({ name: f, content: fs.readFileSync(path.join(rulesDir, f), 'utf8') }));
    const engine = new cfv.CompositeEngine(regoRules.length > 0 ? { regoRules } : {});
    try {
      // Unlike the synthesis plugin, no rule id or service is excluded and nothing is acknowledged.
      const report = engine.validateTemplate(
        new cfv.TemplateContent(fs.readFileSync(templatePath, 'utf8'), templatePath),
        {
          detailLevel: 'STANDARD',
          severityLevel: 'INFO',
        },
      );
      const errors = report.diagnostics.filter((d) => d.severity === 'ERROR' || d.severity === 'FATAL');
      expect(errors.map((d) => `${d.ruleId}: ${d.message}`)).toEqual([]);
      // Warnings: only W3005 (a DependsOn CloudFormation would infer anyway, written by the CDK for
      // every function's role policy), which the synthesis plugin itself leaves out.
      const warnings = [...new Set(report.diagnostics.filter((d) => d.severity === 'WARN').map((d) => d.ruleId))];
      expect(warnings.filter((id) => id !== 'W3005')).toEqual([]);
    } finally {
      engine.free();
    }
  });

  it('no CloudFormation validator finding is acknowledged away by this project, and those aws-cdk-lib acknowledges do not fire', () => {
    const acknowledged = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.keys(m.data as Json));
    const cfnAcks = [...new Set(acknowledged.filter((id) => id.startsWith('CloudFormation-Validate::')))];
    // aws-cdk-lib's own (the VPC's literal AZs, the flow log's property casing), none of ours.
    expect(cfnAcks.sort()).toEqual([
      'CloudFormation-Validate::F3002',
      'CloudFormation-Validate::F3003',
      'CloudFormation-Validate::W3010',
    ]);
    const source = ['cdk/lib', 'cdk/lib/constructs']
      .flatMap((dir) =>
        fs
          .readdirSync(path.join(repoRoot, dir))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => path.join(repoRoot, dir, f)),
      )
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(source).not.toMatch(/CloudFormation-Validate::/);
    expect(source).not.toMatch(/acknowledge\(\{\s*id: '(?!AwsSolutions-)/);
  });

  it('npm run synth is run by .ci/run before npm test', () => {
    const ci = fs.readFileSync(path.join(repoRoot, '.ci/run'), 'utf8');
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Json;
    expect(pkg.scripts.synth).toBe('tsx scripts/synth.ts');
    expect(ci.indexOf('npm run synth')).toBeGreaterThan(-1);
    expect(ci.indexOf('npm run synth')).toBeLessThan(ci.indexOf('npm test'));
  });
});
