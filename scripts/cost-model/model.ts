/**
 * The cost model's arithmetic: pure functions of a synthesized template's resources, a price
 * table and a workload. `scripts/cost-model.ts` feeds them the real template; the unit test
 * feeds them fixed inputs. Nothing here reads a clock, a file or the network.
 */

/** A CloudFormation template, as much of it as the model reads. */
export interface TemplateJson {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }>
  >;
}

interface FunctionResource {
  readonly logicalId: string;
  readonly memoryMB: number;
  readonly timeoutS: number;
  readonly arm: boolean;
  /** `route`: behind the HTTP API; `consumer`: fed by a queue; `scheduled`: by a rule; `other`: custom resources. */
  readonly role: 'route' | 'consumer' | 'scheduled' | 'other';
  readonly description: string;
}

interface TaskResource {
  readonly logicalId: string;
  readonly vcpu: number;
  readonly memoryGB: number;
  readonly arm: boolean;
}

/** What the stack deploys, counted from its template. */
export interface StackResources {
  readonly functions: readonly FunctionResource[];
  readonly queues: { readonly fifo: number; readonly standard: number };
  readonly tables: number;
  readonly pointInTimeRecovery: boolean;
  readonly tasks: readonly TaskResource[];
  readonly alarms: number;
  readonly dashboards: number;
  readonly secrets: number;
  readonly logGroups: number;
  readonly httpApis: number;
  readonly containerInsights: boolean;
  readonly flowLogs: number;
  /** Rate of each scheduled rule, in runs per hour. */
  readonly schedulesPerHour: readonly number[];
}

const defaultLambdaMemoryMB = 128;
const defaultLambdaTimeoutS = 3;

/** The value at `path` inside a piece of template JSON, if every step is an object. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The logical id a `Ref` or `Fn::GetAtt` points at, if the value is one. */
function referenced(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  // Pseudo parameters (`AWS::Partition`…) are not resources.
  if (typeof v.Ref === 'string') return v.Ref.startsWith('AWS::') ? undefined : v.Ref;
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  // API Gateway integrations name the function inside an ARN built with Fn::Join.
  const join = v['Fn::Join'];
  if (Array.isArray(join) && Array.isArray(join[1])) {
    for (const part of join[1] as unknown[]) {
      const id = referenced(part);
      if (id) return id;
    }
  }
  return undefined;
}

/** `rate(1 minute)`, `rate(5 minutes)`, `rate(2 hours)` → runs per hour (cron: not modelled). */
export function runsPerHour(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2]!.replace(/s$/, '');
  return unit === 'minute' ? 60 / n : unit === 'hour' ? 1 / n : 1 / (24 * n);
}

/** Counts what the model prices in a synthesized template. */
export function resourcesOf(template: TemplateJson): StackResources {
  const entries = Object.entries(template.Resources);
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);

  const routeTargets = new Set(
    ofType('AWS::ApiGatewayV2::Integration').map(([, r]) => referenced(r.Properties?.IntegrationUri)),
  );
  const consumerTargets = new Set(
    ofType('AWS::Lambda::EventSourceMapping').map(([, r]) => referenced(r.Properties?.FunctionName)),
  );
  const scheduledTargets = new Set<string | undefined>();
  const schedulesPerHour: number[] = [];
  for (const [, rule] of ofType('AWS::Events::Rule')) {
    const expression = rule.Properties?.ScheduleExpression;
    if (typeof expression !== 'string') continue;
    const rate = runsPerHour(expression);
    if (rate !== undefined) schedulesPerHour.push(rate);
    for (const target of (rule.Properties?.Targets ?? []) as { Arn: unknown }[]) {
      scheduledTargets.add(referenced(target.Arn));
    }
  }

  const functions = ofType('AWS::Lambda::Function').map(([logicalId, r]): FunctionResource => {
    const p = r.Properties ?? {};
    const role = routeTargets.has(logicalId)
      ? 'route'
      : consumerTargets.has(logicalId)
        ? 'consumer'
        : scheduledTargets.has(logicalId)
          ? 'scheduled'
          : 'other';
    return {
      logicalId,
      memoryMB: typeof p.MemorySize === 'number' ? p.MemorySize : defaultLambdaMemoryMB,
      timeoutS: typeof p.Timeout === 'number' ? p.Timeout : defaultLambdaTimeoutS,
      arm: Array.isArray(p.Architectures) && p.Architectures.includes('arm64'),
      role,
      description: typeof p.Description === 'string' ? p.Description : '',
    };
  });

  const queues = ofType('AWS::SQS::Queue');
  const fifo = queues.filter(([, r]) => r.Properties?.FifoQueue === true).length;
  const tables = [...ofType('AWS::DynamoDB::GlobalTable'), ...ofType('AWS::DynamoDB::Table')];
  const pointInTimeRecovery = tables.some(([, r]) => {
    const p = r.Properties ?? {};
    const replicas = Array.isArray(p.Replicas) ? (p.Replicas as unknown[]) : [];
    return [p, ...replicas].some(
      (owner) => at(owner, 'PointInTimeRecoverySpecification', 'PointInTimeRecoveryEnabled') === true,
    );
  });
  const tasks = ofType('AWS::ECS::TaskDefinition').map(([logicalId, r]): TaskResource => {
    const p = r.Properties ?? {};
    return {
      logicalId,
      vcpu: Number(p.Cpu) / 1024,
      memoryGB: Number(p.Memory) / 1024,
      arm: at(p, 'RuntimePlatform', 'CpuArchitecture') === 'ARM64',
    };
  });
  const containerInsights = ofType('AWS::ECS::Cluster').some(([, r]) =>
    ((r.Properties?.ClusterSettings ?? []) as { Name: string; Value: string }[]).some(
      (s) => s.Name === 'containerInsights' && s.Value !== 'disabled',
    ),
  );

  return {
    functions,
    queues: { fifo, standard: queues.length - fifo },
    tables: tables.length,
    pointInTimeRecovery,
    tasks,
    alarms: ofType('AWS::CloudWatch::Alarm').length,
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
    logGroups: ofType('AWS::Logs::LogGroup').length,
    httpApis: ofType('AWS::ApiGatewayV2::Api').length,
    containerInsights,
    flowLogs: ofType('AWS::EC2::FlowLog').length,
    schedulesPerHour,
  };
}

/** US dollars, us-east-1 list prices, no free tier, no savings plan. */
export interface PriceTable {
  readonly date: string;
  readonly sources: readonly string[];
  readonly fargate: {
    readonly x86VcpuHour: number;
    readonly x86GbHour: number;
    readonly armVcpuHour: number;
    readonly armGbHour: number;
  };
  readonly publicIpv4Hour: number;
  readonly lambda: {
    readonly perMillionRequests: number;
    readonly armGbSecond: number;
    readonly x86GbSecond: number;
  };
  readonly httpApiPerMillion: number;
  readonly dynamodb: {
    readonly perMillionWrites: number;
    readonly perMillionReads: number;
    readonly storageGbMonth: number;
    readonly pitrGbMonth: number;
  };
  readonly sqs: { readonly standardPerMillion: number; readonly fifoPerMillion: number };
  readonly cloudwatch: {
    readonly alarmMonth: number;
    readonly dashboardMonth: number;
    readonly metricMonth: number;
    readonly logsIngestedGb: number;
    readonly logsStoredGbMonth: number;
  };
  readonly xrayPerMillionTraces: number;
  readonly secretsManager: { readonly secretMonth: number; readonly per10kCalls: number };
  /** Internet data transfer out, first 10 TB tier (the model does not apply the cheaper tiers). */
  readonly dataOutGb: number;
}

/** What players do. Every number is an assumption the docs state next to the results. */
export interface Workload {
  readonly playersPerRoom: number;
  readonly sessionMinutes: number;
  /** Task time a room pays beyond its session: image pull and start, then the empty-room grace. */
  readonly roomOverheadMinutes: number;
  /** HTTP calls one player makes per session (join, polls of the room while it spawns, leave). */
  readonly requestsPerSession: number;
  /** Billed duration of an ordinary HTTP route call. */
  readonly routeDurationMs: number;
  /** How long the room-creating call holds its function waiting for the server (per room). */
  readonly createHoldS: number;
  /** From the code: the sidecar's heartbeat interval (core/rooms/liveness.ts). */
  readonly heartbeatIntervalS: number;
  /** Controller messages per room besides heartbeats: `inited`, `exited`, credential renewals. */
  readonly roomMessages: number;
  /** Controller messages per player: `joined`, `left`. */
  readonly playerMessages: number;
  /** Messages per consumer invocation (the event source mapping takes up to 10). */
  readonly messagesPerBatch: number;
  readonly consumerDurationMs: number;
  /** WRU of one join from docs/sessions.md (room document + two index entries). */
  readonly writesPerJoin: number;
  /** WRU of the rest of a player's session: `joined`, `left` (each rewrites the document), rate log, idempotency record. */
  readonly otherWritesPerPlayer: number;
  /** WRU to create and end one room (document, index entries, the filling-room pointer). */
  readonly writesPerRoom: number;
  /** WRU of one heartbeat: the room document rewritten (its size rounded up to 1 KB). */
  readonly writesPerHeartbeat: number;
  readonly readsPerRequest: number;
  /** The sweeper reads each live room once a run (strongly consistent, ≤ 4 KB). */
  readonly sweeperReadsPerRoom: number;
  readonly sweeperFixedReads: number;
  readonly sweeperDurationMs: number;
  /** The sidecar long-polls its reply queue (20 s wait): receives per minute per task. */
  readonly replyPollsPerMinute: number;
  /** Idle long polls of the event source mapping on the FIFO queue, per minute. */
  readonly idleConsumerPollsPerMinute: number;
  readonly logBytesPerRequest: number;
  readonly logBytesPerTaskMinute: number;
  readonly logBytesPerSweep: number;
  /** Container Insights (standard) metrics the cluster emits, charged as custom metrics. */
  readonly containerInsightsMetrics: number;
  readonly storedGb: number;
  /** Game traffic to each player: depends entirely on the game. */
  readonly bytesPerPlayerSecond: number;
  readonly secretReadsPerRoom: number;
  /** Traces X-Ray records: the default rule samples 1 request/s, then 5 % of the rest. */
  readonly xraySampledShare: number;
}

export const hoursPerMonth = 730;
const secondsPerMonth = hoursPerMonth * 3600;
const minutesPerMonth = hoursPerMonth * 60;

export type Service =
  | 'Fargate'
  | 'Public IPv4'
  | 'Lambda'
  | 'API Gateway'
  | 'DynamoDB'
  | 'SQS'
  | 'CloudWatch'
  | 'X-Ray'
  | 'Secrets Manager'
  | 'Data transfer out (game traffic)';

export interface MonthlyCost {
  readonly ccu: number;
  readonly rooms: number;
  readonly roomsStartedPerMonth: number;
  readonly byService: Readonly<Record<Service, number>>;
  /** Everything but game traffic, which depends on the game, not on Roomkeeper. */
  readonly platform: number;
  readonly total: number;
}

/**
 * FIFO: each message is sent once, received and deleted in batches; plus the idle long polls.
 * Standard (the reply queues, created by the sidecars at run time, so absent from the
 * template): each reply sent and received, each long poll, and one create and delete per room.
 */
function sqsCost(
  resources: StackResources,
  prices: PriceTable,
  w: Workload,
  month: { messages: number; roomsStarted: number; sessionsPerMonth: number; taskHours: number },
): number {
  const { messages, roomsStarted, sessionsPerMonth, taskHours } = month;
  const fifoRequests =
    messages +
    (2 * messages) / w.messagesPerBatch +
    w.idleConsumerPollsPerMinute * minutesPerMonth * resources.queues.fifo;
  const rpcReplies = roomsStarted * 2 + sessionsPerMonth * w.playerMessages;
  const standardRequests = rpcReplies * 2 + taskHours * 60 * w.replyPollsPerMinute + roomsStarted * 2;
  return (fifoRequests / 1e6) * prices.sqs.fifoPerMillion + (standardRequests / 1e6) * prices.sqs.standardPerMillion;
}

/** The monthly bill at `ccu` concurrent players (0: the idle stack). */
export function monthlyCost(resources: StackResources, prices: PriceTable, w: Workload, ccu: number): MonthlyCost {
  const task = resources.tasks[0];
  if (!task) throw new Error('The template has no task definition.');
  const routes = resources.functions.filter((f) => f.role === 'route');
  const consumers = resources.functions.filter((f) => f.role === 'consumer');
  const scheduled = resources.functions.filter((f) => f.role === 'scheduled');
  if (routes.length === 0 || consumers.length === 0) throw new Error('The template has no route or consumer function.');
  // The largest function of a kind, at its architecture's price: dollars per second of one call.
  const perSecond = (fns: readonly FunctionResource[]) =>
    (Math.max(0, ...fns.map((f) => f.memoryMB)) / 1024) *
    (fns.every((f) => f.arm) ? prices.lambda.armGbSecond : prices.lambda.x86GbSecond);

  const rooms = ccu / w.playersPerRoom;
  const sessionsPerMonth = (ccu * minutesPerMonth) / w.sessionMinutes;
  const roomsStarted = sessionsPerMonth / w.playersPerRoom;
  const taskHours = (rooms * hoursPerMonth * (w.sessionMinutes + w.roomOverheadMinutes)) / w.sessionMinutes;
  const sweepsPerMonth = resources.schedulesPerHour.reduce((sum, rate) => sum + rate, 0) * hoursPerMonth;

  const fargate =
    taskHours *
    (task.arm
      ? task.vcpu * prices.fargate.armVcpuHour + task.memoryGB * prices.fargate.armGbHour
      : task.vcpu * prices.fargate.x86VcpuHour + task.memoryGB * prices.fargate.x86GbHour);
  const publicIpv4 = taskHours * prices.publicIpv4Hour;

  const requests = sessionsPerMonth * w.requestsPerSession;
  const heartbeats = taskHours * (3600 / w.heartbeatIntervalS);
  const messages = heartbeats + roomsStarted * w.roomMessages + sessionsPerMonth * w.playerMessages;
  const consumerInvocations = messages / w.messagesPerBatch;
  const lambdaInvocations = requests + consumerInvocations + sweepsPerMonth;
  const compute =
    ((requests * w.routeDurationMs) / 1000) * perSecond(routes) +
    roomsStarted * w.createHoldS * perSecond(routes) +
    ((consumerInvocations * w.consumerDurationMs) / 1000) * perSecond(consumers) +
    ((sweepsPerMonth * w.sweeperDurationMs) / 1000) * perSecond(scheduled);
  const lambda = (lambdaInvocations / 1e6) * prices.lambda.perMillionRequests + compute;

  const apiGateway = (requests / 1e6) * prices.httpApiPerMillion;

  const writes =
    sessionsPerMonth * (w.writesPerJoin + w.otherWritesPerPlayer) +
    roomsStarted * w.writesPerRoom +
    heartbeats * w.writesPerHeartbeat;
  const reads = requests * w.readsPerRequest + sweepsPerMonth * (w.sweeperFixedReads + rooms * w.sweeperReadsPerRoom);
  const dynamodb =
    (writes / 1e6) * prices.dynamodb.perMillionWrites +
    (reads / 1e6) * prices.dynamodb.perMillionReads +
    w.storedGb *
      resources.tables *
      (prices.dynamodb.storageGbMonth + (resources.pointInTimeRecovery ? prices.dynamodb.pitrGbMonth : 0));

  const sqs = sqsCost(resources, prices, w, { messages, roomsStarted, sessionsPerMonth, taskHours });

  const logGb =
    (lambdaInvocations * w.logBytesPerRequest +
      taskHours * 60 * w.logBytesPerTaskMinute +
      sweepsPerMonth * w.logBytesPerSweep) /
    1e9;
  const cloudwatch =
    resources.alarms * prices.cloudwatch.alarmMonth +
    resources.dashboards * prices.cloudwatch.dashboardMonth +
    (resources.containerInsights ? w.containerInsightsMetrics * prices.cloudwatch.metricMonth : 0) +
    logGb * (prices.cloudwatch.logsIngestedGb + prices.cloudwatch.logsStoredGbMonth);

  // The default sampling rule records one request a second, then a share of the rest.
  const traced =
    Math.min(lambdaInvocations, secondsPerMonth) +
    Math.max(0, lambdaInvocations - secondsPerMonth) * w.xraySampledShare;
  const xray = (traced / 1e6) * prices.xrayPerMillionTraces;

  const secretsManager =
    resources.secrets * prices.secretsManager.secretMonth +
    ((roomsStarted * w.secretReadsPerRoom) / 1e4) * prices.secretsManager.per10kCalls;

  const dataOut = ((ccu * secondsPerMonth * w.bytesPerPlayerSecond) / 1e9) * prices.dataOutGb;

  const byService: Record<Service, number> = {
    Fargate: fargate,
    'Public IPv4': publicIpv4,
    Lambda: lambda,
    'API Gateway': apiGateway,
    DynamoDB: dynamodb,
    SQS: sqs,
    CloudWatch: cloudwatch,
    'X-Ray': xray,
    'Secrets Manager': secretsManager,
    'Data transfer out (game traffic)': dataOut,
  };
  const total = Object.values(byService).reduce((sum, cost) => sum + cost, 0);
  return { ccu, rooms, roomsStartedPerMonth: roomsStarted, byService, platform: total - dataOut, total };
}
