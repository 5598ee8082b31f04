import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as budgets from 'aws-cdk-lib/aws-budgets';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { defaultMetricsNamespace, spawnMetrics, versionMetrics } from '../../../core/infra/metrics';
import { LiveApi } from './live-api';
import { PlatformSchedules, scheduleInterval } from './platform-schedules';
import { PlayerApi } from './player-api';
import { ProjectFunction } from './project-function';
import type { ProjectQueue } from './project-queue';
import { QueueConsumers } from './queue-consumers';
import { pathInStack } from './stack-part';

/**
 * Every alarm's threshold, in one place (docs/operations.md explains each). Periods are
 * 1 minute for SQS and the Fargate usage (published each minute), 5 minutes elsewhere.
 */
export const alarmThresholds = {
  /** Any message in a dead-letter queue is a request the platform gave up on. */
  deadLetterMessages: 1,
  /** Controller requests (heartbeats, inited, joined) are consumed within seconds. */
  oldestMessageAgeS: 60,
  /** Lambda `Errors` are unhandled failures and timeouts: the handlers answer every expected error themselves. */
  functionErrors: 1,
  functionThrottles: 1,
  /** p99 duration above this share of the function's timeout: it is about to time out. */
  durationShareOfTimeout: 0.8,
  api5xx: 5,
  /** p95 of the API's latency; createRoom holds its caller while a server starts, the other routes answer in milliseconds. */
  apiLatencyP95Ms: 2_500,
  dynamodbThrottles: 1,
  /** Spawn failures or timeouts within 5 minutes. */
  spawnFailures: 3,
  spawnTimeouts: 3,
  /**
   * Clients refused within 5 minutes because their build's network components differ from the
   * servers' (docs/versions.md): a few are stragglers on an old client; more mean two builds
   * that should be one are out in the world.
   */
  protocolMismatches: 10,
  /** Percent of the account's Fargate On-Demand vCPU quota in use. */
  fargateQuotaPercent: 80,
  /**
   * Minutes in a row in which a scheduled function (the room sweeper, the pool keeper) failed:
   * one failed run is retried by the next minute's, several in a row mean it is down.
   */
  scheduleFailingMinutes: 3,
  /** Minutes without a single run of a scheduled function (no data counts as no run). */
  scheduleSilentMinutes: 5,
  /** Any room change the stream consumer gave up on is a tap some subscribers never got. */
  tapFailures: 1,
  /** Age of the oldest room change not yet turned into taps: subscribers hear of changes this late. */
  tapIteratorAgeS: 30,
  /** WebSocket frames whose function failed or timed out, within 5 minutes. */
  liveIntegrationErrors: 5,
} as const;

/** The dashboard's alarm-status widgets, one per group, in this order. */
export const alarmGroups = ['API routes', 'Queues and consumers', 'Schedules', 'Live sessions', 'Platform'] as const;
export type AlarmGroup = (typeof alarmGroups)[number];

/**
 * CloudWatch's most alarms in one alarm-status widget (Dashboard Body Structure: an alarm
 * widget's `alarms` holds 1 to 100 ARNs); a dashboard with more fails to deploy.
 */
export const maxAlarmsPerWidget = 100;

/**
 * CloudWatch's most metrics in one metric-math alarm, a hard limit ("Alarms based on metric math
 * expressions can reference a maximum of 10 metrics",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-limits.html): the
 * functions' alarms each watch a run of at most this many functions.
 */
export const maxMetricsPerAlarm = 10;

export interface OperationsProps {
  readonly namePrefix: string;
  readonly api: HttpApi;
  readonly table: dynamodb.ITableV2;
  readonly queues: readonly ProjectQueue[];
  readonly cluster: ecs.ICluster;
  /** Every function of the stack, each watched by its stack part's function alarms. */
  readonly functions: readonly ProjectFunction[];
  /** The WebSocket API and the stream consumer: their own alarms beside their functions'. */
  readonly live?: LiveApi;
  /** Subscribed to the alarm topic when set (`-c alarmEmail=ops@example.com`). */
  readonly alarmEmail?: string;
  /** An AWS Budgets monthly cost budget in USD, alerting at 80 % actual and 100 % forecast (`-c monthlyBudgetUsd=200`). */
  readonly monthlyBudgetUsd?: number;
}

/**
 * Alarms and a dashboard for what the platform runs on: queues and their dead letters,
 * every function, the API, the table, game server spawns (the platform's own metrics,
 * core/infra/metrics.ts) and Fargate capacity against the account's quota. Every alarm
 * notifies one SNS topic (encrypted with a key CloudWatch may use).
 */
export class Operations extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];
  /** The alarm-status widget group of each alarm. */
  readonly alarmGroup = new Map<cloudwatch.Alarm, AlarmGroup>();
  readonly budget?: budgets.CfnBudget;
  private readonly namePrefix: string;
  private readonly topicKey: kms.Key;
  private readonly alarmAction: actions.SnsAction;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix;
    // The functions emit their spawn metrics under this service, so two stages never mix.
    for (const fn of props.functions) {
      fn.function.addEnvironment('POWERTOOLS_METRICS_NAMESPACE', defaultMetricsNamespace);
      fn.function.addEnvironment('POWERTOOLS_SERVICE_NAME', props.namePrefix);
    }

    // A customer managed key: CloudWatch (and Budgets) cannot publish to a topic encrypted
    // with the AWS managed SNS key, whose policy cannot be changed.
    this.topicKey = new kms.Key(this, 'TopicKey', {
      description: `${props.namePrefix}: encrypts the alarm topic`,
      enableKeyRotation: true,
    });
    this.topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${props.namePrefix} alarms`,
      masterKey: this.topicKey,
      enforceSSL: true,
    });
    this.mayPublish('cloudwatch.amazonaws.com');
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.alarmAction = new actions.SnsAction(this.topic);
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'Subscribe here to alarm notifications',
    });

    const queueWidgets = props.queues.flatMap((queue) => this.watchQueue(queue));
    if (props.live) queueWidgets.push(...this.watchLive(props.live));
    const functionMetrics = this.watchFunctions(props.functions);
    const platformMetrics = this.watchPlatform(props);
    if (props.monthlyBudgetUsd !== undefined) this.budget = this.addBudget(props.monthlyBudgetUsd);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.namePrefix,
      defaultInterval: Duration.hours(3),
    });
    this.addWidgets(platformMetrics, functionMetrics, queueWidgets);
  }

  private mayPublish(service: string): void {
    this.topicKey.grant(new iam.ServicePrincipal(service), 'kms:Decrypt', 'kms:GenerateDataKey*');
  }

  private alarm(alarmId: string, metric: cloudwatch.IMetric, options: AlarmOptions): cloudwatch.Alarm {
    const created = new cloudwatch.Alarm(this, alarmId, {
      alarmName: `${this.namePrefix}-${alarmId}`,
      alarmDescription: options.description,
      metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm ?? options.evaluationPeriods ?? 1,
      comparisonOperator:
        options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data is no traffic (or no failures), never an incident, except where an alarm says so.
      treatMissingData: options.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(this.alarmAction);
    this.alarms.push(created);
    this.alarmGroup.set(created, options.group);
    return created;
  }

  /** A queue's dead letters and its oldest message; its two dashboard graphs. */
  private watchQueue(q: ProjectQueue): cloudwatch.IWidget[] {
    const dlqDepth = q.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: oneMinute,
      statistic: 'Maximum',
    });
    const oldest = q.queue.metricApproximateAgeOfOldestMessage({ period: oneMinute, statistic: 'Maximum' });
    this.alarm(`Queue-${q.definition.id}-DeadLetters`, dlqDepth, {
      group: 'Queues and consumers',
      threshold: alarmThresholds.deadLetterMessages,
      description: `Messages in the ${q.definition.id} dead-letter queue: requests the platform gave up on.`,
    });
    this.alarm(`Queue-${q.definition.id}-OldestMessage`, oldest, {
      group: 'Queues and consumers',
      threshold: alarmThresholds.oldestMessageAgeS,
      evaluationPeriods: 3,
      description: `The ${q.definition.id} queue holds a message older than ${alarmThresholds.oldestMessageAgeS} s: its consumer is not keeping up.`,
    });
    return [
      new cloudwatch.GraphWidget({ title: `${q.definition.id}: oldest message (s)`, left: [oldest] }),
      new cloudwatch.GraphWidget({ title: `${q.definition.id}: dead letters`, left: [dlqDepth] }),
    ];
  }

  /**
   * Live sessions: stream records the tap consumer gave up on, how late taps run behind the
   * table's writes (the stream's iterator age), and frames whose function failed.
   */
  private watchLive(live: LiveApi): cloudwatch.IWidget[] {
    const group = 'Live sessions';
    const failed = live.tapFailures.metricApproximateNumberOfMessagesVisible({
      period: oneMinute,
      statistic: 'Maximum',
    });
    this.alarm('Live-TapFailures', failed, {
      group,
      threshold: alarmThresholds.tapFailures,
      description: 'Room changes the tap consumer gave up on: their subscribers got no tap (docs/operations.md).',
    });
    const iteratorAge = live.taps.function.metric('IteratorAge', { period: oneMinute, statistic: 'Maximum' });
    this.alarm('Live-TapDelay', iteratorAge, {
      group,
      threshold: alarmThresholds.tapIteratorAgeS * 1000,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `Taps run more than ${alarmThresholds.tapIteratorAgeS} s behind the table's writes: the stream consumer is not keeping up.`,
    });
    const liveMetric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: live.api.apiId, Stage: live.stage.stageName },
        period: fiveMinutes,
        statistic: 'Sum',
      });
    const integrationErrors = liveMetric('IntegrationError');
    this.alarm('Live-IntegrationErrors', integrationErrors, {
      group,
      threshold: alarmThresholds.liveIntegrationErrors,
      description: 'WebSocket frames (connects, subscribes, pings) whose function failed or timed out.',
    });
    return [
      new cloudwatch.GraphWidget({
        title: 'Live: connects and frames',
        left: [liveMetric('ConnectCount'), liveMetric('MessageCount')],
        right: [integrationErrors],
      }),
      new cloudwatch.GraphWidget({
        title: 'Live: tap delay (ms) and failed changes',
        left: [iteratorAge],
        right: [failed],
      }),
    ];
  }

  /**
   * The functions' errors, throttles and p99 duration against their timeouts: three metric-math
   * alarms for each run of at most `maxMetricsPerAlarm` functions of one stack part, not three
   * per function, so a route added costs no alarm until it starts a new run (CloudFormation takes
   * at most 500 resources in a stack). The dashboard keeps each function's own graphs.
   */
  private watchFunctions(functions: readonly ProjectFunction[]): FunctionMetrics {
    for (const group of alarmGroups) {
      const members = functions.filter((fn) => functionGroup(fn) === group);
      chunked(members, maxMetricsPerAlarm).forEach((run, i) => this.watchFunctionRun(group, i + 1, run));
    }
    const metrics: FunctionMetrics = { errors: [], throttles: [], durations: [] };
    for (const fn of functions) {
      const name = functionLabel(fn);
      if (functionGroup(fn) === 'Schedules') this.watchSchedule(fn, name);
      const f = fn.function;
      metrics.errors.push(f.metricErrors({ period: fiveMinutes, statistic: 'Sum', label: name }));
      metrics.throttles.push(f.metricThrottles({ period: fiveMinutes, statistic: 'Sum', label: name }));
      metrics.durations.push(f.metricDuration({ period: fiveMinutes, statistic: 'p99', label: name }));
    }
    return metrics;
  }

  /**
   * One run of a group's functions (`Functions-Routes-2-…`): their Errors summed, their
   * Throttles summed, and the largest of their p99 durations each divided by its own timeout.
   * Each description names the functions, and the dashboard's graphs show which one it was.
   */
  private watchFunctionRun(group: AlarmGroup, n: number, run: readonly ProjectFunction[]): void {
    const id = `Functions-${functionGroupIds[group]}-${n}`;
    const names = run.map(functionLabel).join(', ');
    const errors = sumOf(run, 'e', (f) => f.metricErrors({ period: fiveMinutes, statistic: 'Sum' }));
    this.alarm(`${id}-Errors`, errors, {
      group,
      threshold: alarmThresholds.functionErrors,
      description: `Unhandled errors or timeouts (Errors summed) of ${names}.`,
    });
    const throttles = sumOf(run, 't', (f) => f.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }));
    this.alarm(`${id}-Throttles`, throttles, {
      group,
      threshold: alarmThresholds.functionThrottles,
      description: `Invocations throttled (account or reserved concurrency; Throttles summed) of ${names}.`,
    });
    this.alarm(`${id}-Duration`, durationShare(run), {
      group,
      threshold: alarmThresholds.durationShareOfTimeout,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description:
        `p99 duration above ${alarmThresholds.durationShareOfTimeout * 100} % of the function's own timeout, ` +
        `in any of ${run.map((fn) => `${functionLabel(fn)} (${timeoutMsOf(fn) / 1000} s)`).join(', ')}.`,
    });
  }

  /**
   * A function EventBridge runs every minute: the room sweeper (failed and overdue rooms, orphan
   * servers and queues) or the pool keeper (standby servers). Its own alarms cannot tell when
   * every run fails for minutes on end, nor when it stops running at all: no run is no data,
   * which the other alarms count as fine, so here no data is a breach.
   */
  private watchSchedule(fn: ProjectFunction, name: string): void {
    const failingMinutes = alarmThresholds.scheduleFailingMinutes;
    const errors = fn.function.metricErrors({ period: scheduleInterval, statistic: 'Sum' });
    this.alarm(`Schedule-${name}-Failing`, errors, {
      group: 'Schedules',
      threshold: 1,
      evaluationPeriods: failingMinutes,
      description: `${name} failed in each of the last ${failingMinutes} minutes: what it enforces is not being enforced (docs/operations.md).`,
    });
    const silentMinutes = alarmThresholds.scheduleSilentMinutes;
    const runs = fn.function.metricInvocations({ period: Duration.minutes(silentMinutes), statistic: 'Sum' });
    this.alarm(`Schedule-${name}-NotRunning`, runs, {
      group: 'Schedules',
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      description: `${name} has not run in ${silentMinutes} minutes: its schedule, its permission or the function is broken (docs/operations.md).`,
    });
  }

  /** The API, the table, game server spawns and Fargate capacity. */
  private watchPlatform(props: OperationsProps): PlatformMetrics {
    const api5xx = props.api.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const apiLatency = props.api.metricLatency({ period: fiveMinutes, statistic: 'p95' });
    this.alarm('Api-5xx', api5xx, {
      group: 'Platform',
      threshold: alarmThresholds.api5xx,
      description: 'The player API answers 5xx.',
    });
    this.alarm('Api-LatencyP95', apiLatency, {
      group: 'Platform',
      threshold: alarmThresholds.apiLatencyP95Ms,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `p95 API latency above ${alarmThresholds.apiLatencyP95Ms} ms.`,
    });
    const dynamodbThrottles = tableThrottles(props.table);
    this.alarm('Table-Throttles', dynamodbThrottles, {
      group: 'Platform',
      threshold: alarmThresholds.dynamodbThrottles,
      description: 'DynamoDB throttled reads or writes of the table.',
    });
    // Spawns: the platform's own metrics (core/infra/metrics.ts).
    const spawnFailures = spawnMetric(props.namePrefix, spawnMetrics.failed);
    const spawnTimeouts = spawnMetric(props.namePrefix, spawnMetrics.timedOut);
    this.alarm('Spawn-Failures', spawnFailures, {
      group: 'Platform',
      threshold: alarmThresholds.spawnFailures,
      description: 'Game servers that could not be started (RunTask refused, no capacity, bad image…).',
    });
    this.alarm('Spawn-Timeouts', spawnTimeouts, {
      group: 'Platform',
      threshold: alarmThresholds.spawnTimeouts,
      description: 'Game servers that did not call inited before their spawn deadline.',
    });
    this.alarm('Protocol-Mismatches', spawnMetric(props.namePrefix, versionMetrics.protocolMismatches), {
      group: 'Platform',
      threshold: alarmThresholds.protocolMismatches,
      description:
        "Clients refused because their network components differ from the game servers' (docs/versions.md): " +
        'a client or server build is out of date.',
    });
    const fargateQuotaUse = fargateQuotaShare();
    this.alarm('Fargate-QuotaUse', fargateQuotaUse, {
      group: 'Platform',
      threshold: alarmThresholds.fargateQuotaPercent,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      description: `Fargate On-Demand vCPU above ${alarmThresholds.fargateQuotaPercent} % of the account's quota: new game servers will soon fail to start.`,
    });
    const runningTasks = new cloudwatch.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: 'RunningTaskCount',
      dimensionsMap: { ClusterName: props.cluster.clusterName },
      period: oneMinute,
      statistic: 'Maximum',
      label: 'Running game server tasks',
    });
    return { api5xx, apiLatency, dynamodbThrottles, spawnFailures, spawnTimeouts, fargateQuotaUse, runningTasks };
  }

  /** An AWS Budgets monthly cost budget notifying the alarm topic at 80 % actual and 100 % forecast. */
  private addBudget(monthlyBudgetUsd: number): budgets.CfnBudget {
    const subscribers = [{ subscriptionType: 'SNS', address: this.topic.topicArn }];
    this.mayPublish('budgets.amazonaws.com');
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('budgets.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    const notification = (notificationType: string, threshold: number) => ({
      notification: { notificationType, comparisonOperator: 'GREATER_THAN', threshold, thresholdType: 'PERCENTAGE' },
      subscribers,
    });
    return new budgets.CfnBudget(this, 'MonthlyBudget', {
      budget: {
        budgetName: `${this.namePrefix}-monthly`,
        budgetType: 'COST',
        timeUnit: 'MONTHLY',
        budgetLimit: { amount: monthlyBudgetUsd, unit: 'USD' },
      },
      notificationsWithSubscribers: [notification('ACTUAL', 80), notification('FORECASTED', 100)],
    });
  }

  /**
   * One alarm-status widget per group, those in ALARM first: a large group takes the
   * dashboard's width, the small ones share a row. A group holds far fewer than
   * `maxAlarmsPerWidget` alarms (functions are alarmed by runs of ten, not one by one);
   * test/cdk/operations.test.ts checks the bound on the synthesized body.
   */
  private alarmWidgets(): cloudwatch.IWidget[] {
    return alarmGroups.map((group) => {
      const alarms = this.alarms.filter((alarm) => this.alarmGroup.get(alarm) === group);
      return new cloudwatch.AlarmStatusWidget({
        title: `Alarms: ${group}`,
        alarms,
        sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
        width: alarms.length > 30 ? 24 : 8,
        height: 6,
      });
    });
  }

  private addWidgets(platform: PlatformMetrics, functions: FunctionMetrics, queueWidgets: cloudwatch.IWidget[]): void {
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# ${this.namePrefix}\nAlarms notify the SNS topic ${this.namePrefix} alarms; see docs/operations.md.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(...this.alarmWidgets());
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'API 5xx', left: [platform.api5xx] }),
      new cloudwatch.GraphWidget({ title: 'API latency p95 (ms)', left: [platform.apiLatency] }),
      new cloudwatch.GraphWidget({
        title: 'Spawn failures and timeouts',
        left: [platform.spawnFailures, platform.spawnTimeouts],
      }),
      new cloudwatch.GraphWidget({
        title: 'Game servers vs the Fargate quota',
        left: [platform.runningTasks],
        right: [platform.fargateQuotaUse],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'Lambda errors', left: functions.errors, width: 8 }),
      new cloudwatch.GraphWidget({ title: 'Lambda throttles', left: functions.throttles, width: 8 }),
      new cloudwatch.GraphWidget({ title: 'Lambda duration p99 (ms)', left: functions.durations, width: 8 }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', left: [platform.dynamodbThrottles] }),
      ...queueWidgets,
    );
  }

  /** Every ProjectFunction under `scope` (the stack), so a function added later cannot go unwatched. */
  static functionsOf(scope: Construct): ProjectFunction[] {
    return scope.node.findAll().filter((c): c is ProjectFunction => c instanceof ProjectFunction);
  }
}

const oneMinute = Duration.minutes(1);
const fiveMinutes = Duration.minutes(5);

interface FunctionMetrics {
  readonly errors: cloudwatch.IMetric[];
  readonly throttles: cloudwatch.IMetric[];
  readonly durations: cloudwatch.IMetric[];
}

interface PlatformMetrics {
  readonly api5xx: cloudwatch.IMetric;
  readonly apiLatency: cloudwatch.IMetric;
  readonly dynamodbThrottles: cloudwatch.IMetric;
  readonly spawnFailures: cloudwatch.IMetric;
  readonly spawnTimeouts: cloudwatch.IMetric;
  readonly fargateQuotaUse: cloudwatch.IMetric;
  readonly runningTasks: cloudwatch.IMetric;
}

/** Throttled reads and writes (on-demand tables throttle past their peak ×2 or the account's limits). */
function tableThrottles(table: dynamodb.ITableV2): cloudwatch.MathExpression {
  const tableMetric = (metricName: string) =>
    new cloudwatch.Metric({
      namespace: 'AWS/DynamoDB',
      metricName,
      dimensionsMap: { TableName: table.tableName },
      period: fiveMinutes,
      statistic: 'Sum',
    });
  return new cloudwatch.MathExpression({
    expression: 'FILL(r, 0) + FILL(w, 0)',
    usingMetrics: { r: tableMetric('ReadThrottleEvents'), w: tableMetric('WriteThrottleEvents') },
    label: 'Throttled table requests',
    period: fiveMinutes,
  });
}

function spawnMetric(namePrefix: string, metricName: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: defaultMetricsNamespace,
    metricName,
    dimensionsMap: { service: namePrefix },
    period: fiveMinutes,
    statistic: 'Sum',
  });
}

/** The account's Fargate On-Demand vCPU in use against its quota (all clusters: the quota is per account and region). */
function fargateQuotaShare(): cloudwatch.MathExpression {
  const fargateVcpu = new cloudwatch.Metric({
    namespace: 'AWS/Usage',
    metricName: 'ResourceCount',
    dimensionsMap: { Service: 'Fargate', Type: 'Resource', Resource: 'vCPU', Class: 'Standard/OnDemand' },
    period: oneMinute,
    statistic: 'Maximum',
  });
  return new cloudwatch.MathExpression({
    expression: 'vcpu / SERVICE_QUOTA(vcpu) * 100',
    usingMetrics: { vcpu: fargateVcpu },
    label: 'Fargate On-Demand vCPU, % of quota',
    period: oneMinute,
  });
}

interface AlarmOptions {
  /** Which alarm-status widget of the dashboard shows it. */
  readonly group: AlarmGroup;
  readonly threshold: number;
  readonly description: string;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
  /** @default greater than or equal to the threshold */
  readonly comparisonOperator?: cloudwatch.ComparisonOperator;
  /** @default not breaching */
  readonly treatMissingData?: cloudwatch.TreatMissingData;
}

/** `Route-createRoom`, `Consumer-controllerRequests`, `RoomSweeper`, `TokenSigningKey-Provisioner`. */
function functionLabel(fn: ProjectFunction): string {
  return pathInStack(fn).join('-');
}

/** The group's part of its function alarms' names: `Functions-Routes-1-Errors`. */
const functionGroupIds: Record<AlarmGroup, string> = {
  'API routes': 'Routes',
  'Queues and consumers': 'Consumers',
  Schedules: 'Schedules',
  'Live sessions': 'Live',
  Platform: 'Platform',
};

function timeoutMsOf(fn: ProjectFunction): number {
  return (fn.function.timeout ?? Duration.seconds(3)).toMilliseconds();
}

/** Every function's metric, missing points as 0 (a function without invocations publishes none), summed. */
function sumOf(
  run: readonly ProjectFunction[],
  prefix: string,
  metric: (f: ProjectFunction['function']) => cloudwatch.Metric,
): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: run.map((_, i) => `FILL(${prefix}${i}, 0)`).join(' + '),
    usingMetrics: Object.fromEntries(run.map((fn, i) => [`${prefix}${i}`, metric(fn.function)])),
    period: fiveMinutes,
  });
}

/** The largest p99 duration of the run as a share of that function's own timeout (1 = timing out). */
function durationShare(run: readonly ProjectFunction[]): cloudwatch.MathExpression {
  const shares = run.map((fn, i) => `FILL(d${i}, 0) / ${timeoutMsOf(fn)}`);
  return new cloudwatch.MathExpression({
    expression: shares.length === 1 ? shares[0]! : `MAX([${shares.join(', ')}])`,
    usingMetrics: Object.fromEntries(
      run.map((fn, i) => [`d${i}`, fn.function.metricDuration({ period: fiveMinutes, statistic: 'p99' })]),
    ),
    period: fiveMinutes,
  });
}

/** The stack part a function belongs to, as its alarms' group; functions outside the parts are the platform's. */
function functionGroup(fn: ProjectFunction): AlarmGroup {
  const scopes = fn.node.scopes;
  if (scopes.some((scope) => scope instanceof PlayerApi)) return 'API routes';
  if (scopes.some((scope) => scope instanceof QueueConsumers)) return 'Queues and consumers';
  if (scopes.some((scope) => scope instanceof PlatformSchedules)) return 'Schedules';
  if (scopes.some((scope) => scope instanceof LiveApi)) return 'Live sessions';
  return 'Platform';
}

/** `items` in order, in runs of at most `size`. */
function chunked<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}
