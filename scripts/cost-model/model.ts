/**
 * The cost model's arithmetic: pure functions of a synthesized template's resources (and the
 * settings its functions carry), a price table, a workload and a scenario. `scripts/cost-model.ts`
 * feeds them the real templates; the unit test feeds them fixed inputs. Nothing here reads a
 * clock, a file or the network.
 */
import { playerWait, type PlayerWait } from '../../cdk/lib/scale/player-wait';
import type { DeploymentSettings, FunctionResource, StackResources } from './template';

export { playerWait };

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
    /** Per metric an alarm watches (standard resolution). */
    readonly alarmMetricMonth: number;
    readonly dashboardMonth: number;
    readonly metricMonth: number;
    readonly logsIngestedGb: number;
    /** Vended logs (VPC flow logs) delivered to CloudWatch Logs, first tier. */
    readonly vendedLogsGb: number;
    readonly logsStoredGbMonth: number;
  };
  readonly xrayPerMillionTraces: number;
  readonly secretsManager: { readonly secretMonth: number; readonly per10kCalls: number };
  readonly kmsKeyMonth: number;
  readonly ecrStorageGbMonth: number;
  /** Internet data transfer out, first 10 TB tier (the model does not apply the cheaper tiers). */
  readonly dataOutGb: number;
}

/**
 * What players do and what the model cannot read from the template. Every number is an
 * assumption docs/cost-model.md states next to the results.
 */
export interface Workload {
  readonly playersPerRoom: number;
  readonly sessionMinutes: number;
  /** Joins per second per concurrent player: each player joins once a session. */
  readonly joinsPerSecondPerCcu: number;
  /** From RunTask to the room reading `ready`; Fargate bills from the image pull. */
  readonly serverStartS: number;
  /** Leave calls per player session (`DELETE /v1/rooms/{roomId}/members/me`). */
  readonly leavesPerPlayer: number;
  /** Billed duration of an ordinary HTTP route call. */
  readonly routeDurationMs: number;
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
  /** Rejected flows logged per public address an hour (internet background scanning). */
  readonly flowLogRecordsPerAddressHour: number;
  readonly flowLogRecordBytes: number;
  /** Container Insights (standard) metrics the cluster emits, charged as custom metrics. */
  readonly containerInsightsMetrics: number;
  readonly storedGb: number;
  /** Compressed size of each image CDK pushes to its asset repository, and how many versions stay there. */
  readonly imageAssetGb: number;
  readonly imageVersionsKept: number;
  /** Game traffic to each player: depends entirely on the game. */
  readonly bytesPerPlayerSecond: number;
  /** Secret reads by the functions per room (each execution environment reads a key once). */
  readonly functionSecretReadsPerRoom: number;
  /** Traces X-Ray records: the default rule samples 1 request/s, then 5 % of the rest. */
  readonly xraySampledShare: number;
  /** Game configurations the rooms are spread over (each has its own running-server cap). */
  readonly configurations: number;
}

/** One column of the bill: players, the warm pool, and the template deployed for it. */
export interface Scenario {
  readonly name: string;
  readonly ccu: number;
  /** Servers started ahead of demand and kept ready (a configuration's `standby`). */
  readonly standbyServers: number;
  readonly resources: StackResources;
}

export const hoursPerMonth = 730;
const secondsPerMonth = hoursPerMonth * 3600;
const minutesPerMonth = hoursPerMonth * 60;

/** Where a room's task time beyond its session goes, in seconds. */
export interface RoomOverhead {
  /** From the image pull to `ready` (Fargate bills from the pull). */
  readonly startS: number;
  /** The empty-room grace after the last player leaves. */
  readonly emptyGraceS: number;
  /** The wait for the sweeper's next run once the grace is over: half an interval on average. */
  readonly sweepLagS: number;
  /** From StopTask until the task stops: the task's stop timeouts (a bound). */
  readonly stopS: number;
  readonly totalS: number;
}

/**
 * The task time a room pays beyond its session, from the settings: it starts, its players
 * play, then it runs empty through the grace until the sweeper ends it and ECS stops it.
 */
export function roomOverhead(settings: DeploymentSettings, stopS: number, w: Workload): RoomOverhead {
  const parts = {
    startS: w.serverStartS,
    emptyGraceS: settings.emptyRoomGraceS,
    sweepLagS: settings.sweepIntervalS / 2,
    stopS,
  };
  return { ...parts, totalS: parts.startS + parts.emptyGraceS + parts.sweepLagS + parts.stopS };
}

export class ScenarioExceedsCapError extends Error {
  override readonly name = 'ScenarioExceedsCapError';
  constructor(
    readonly scenario: string,
    readonly cap: 'maxRunningServers' | 'maxServersPerConfiguration',
    readonly needed: number,
    readonly allowed: number,
  ) {
    super(
      `Scenario ${scenario} needs ${Math.ceil(needed)} running servers on average where its template's ${cap} allows ` +
        `${allowed}: creates beyond the cap get 503, so the bill would not be this one. Deploy it with its scale profile.`,
    );
  }
}

export type Service =
  | 'Fargate'
  | 'Public IPv4'
  | 'Lambda'
  | 'API Gateway'
  | 'DynamoDB'
  | 'SQS'
  | 'CloudWatch'
  | 'VPC flow logs'
  | 'X-Ray'
  | 'Secrets Manager'
  | 'KMS'
  | 'ECR'
  | 'Data transfer out (game traffic)';

export interface MonthlyCost {
  readonly scenario: string;
  readonly ccu: number;
  readonly settings: DeploymentSettings;
  readonly rooms: number;
  readonly roomsStartedPerMonth: number;
  readonly overhead: RoomOverhead;
  readonly wait: PlayerWait;
  readonly standbyServers: number;
  /** Servers running on average: rooms through their overhead, and the standby servers. */
  readonly serversRunning: number;
  /** What the standby servers alone cost (their tasks, addresses, heartbeats, polls and logs). */
  readonly standbyCost: number;
  readonly byService: Readonly<Record<Service, number>>;
  /** Everything but game traffic, which depends on the game, not on Roomkeeper. */
  readonly platform: number;
  readonly total: number;
}

/** A month's counts of everything that bills by use. */
interface Usage {
  readonly rooms: number;
  readonly sessions: number;
  readonly roomsStarted: number;
  /** Rooms started, and standby servers started again as each reaches its maximum lifetime. */
  readonly tasksStarted: number;
  readonly taskHours: number;
  readonly sweeps: number;
  readonly requests: number;
  readonly holdSeconds: number;
  readonly heartbeats: number;
  readonly messages: number;
}

function usageOf(scenario: Scenario, w: Workload, overhead: RoomOverhead, wait: PlayerWait): Usage {
  const { ccu, resources } = scenario;
  const rooms = ccu / w.playersPerRoom;
  const sessions = (ccu * minutesPerMonth) / w.sessionMinutes;
  const roomsStarted = sessions / w.playersPerRoom;
  const roomTaskHours = (rooms * hoursPerMonth * (w.sessionMinutes * 60 + overhead.totalS)) / (w.sessionMinutes * 60);
  const taskHours = roomTaskHours + scenario.standbyServers * hoursPerMonth;
  const heartbeats = taskHours * (3600 / resources.settings.heartbeatIntervalS);
  const tasksStarted = roomsStarted + (scenario.standbyServers * secondsPerMonth) / resources.settings.maxLifetimeS;
  return {
    rooms,
    sessions,
    roomsStarted,
    tasksStarted,
    taskHours,
    sweeps: resources.schedulesPerHour.reduce((sum, rate) => sum + rate, 0) * hoursPerMonth,
    requests: sessions * (1 + wait.polls + w.leavesPerPlayer),
    holdSeconds: sessions * wait.holdS,
    heartbeats,
    messages: heartbeats + tasksStarted * w.roomMessages + sessions * w.playerMessages,
  };
}

/**
 * FIFO: each message is sent once, received and deleted in batches; plus the idle long polls.
 * Standard (the reply queues, created by the sidecars at run time, so absent from the
 * template): each reply sent and received, each long poll, and one create and delete per room.
 */
function sqsCost(resources: StackResources, prices: PriceTable, w: Workload, u: Usage): number {
  const fifoRequests =
    u.messages +
    (2 * u.messages) / w.messagesPerBatch +
    w.idleConsumerPollsPerMinute * minutesPerMonth * resources.queues.fifo;
  const rpcReplies = u.tasksStarted * 2 + u.sessions * w.playerMessages;
  const standardRequests = rpcReplies * 2 + u.taskHours * 60 * w.replyPollsPerMinute + u.tasksStarted * 2;
  return (fifoRequests / 1e6) * prices.sqs.fifoPerMillion + (standardRequests / 1e6) * prices.sqs.standardPerMillion;
}

function lambdaCost(resources: StackResources, prices: PriceTable, w: Workload, u: Usage): number {
  const of = (role: FunctionResource['role']) => resources.functions.filter((f) => f.role === role);
  const [routes, consumers, scheduled] = [of('route'), of('consumer'), of('scheduled')];
  if (routes.length === 0 || consumers.length === 0) throw new Error('The template has no route or consumer function.');
  // The largest function of a kind, at its architecture's price: dollars per second of one call.
  const perSecond = (fns: readonly FunctionResource[]) =>
    (Math.max(0, ...fns.map((f) => f.memoryMB)) / 1024) *
    (fns.every((f) => f.arm) ? prices.lambda.armGbSecond : prices.lambda.x86GbSecond);
  const consumerInvocations = u.messages / w.messagesPerBatch;
  const compute =
    ((u.requests * w.routeDurationMs) / 1000 + u.holdSeconds) * perSecond(routes) +
    ((consumerInvocations * w.consumerDurationMs) / 1000) * perSecond(consumers) +
    ((u.sweeps * w.sweeperDurationMs) / 1000) * perSecond(scheduled);
  return (invocationsOf(w, u) / 1e6) * prices.lambda.perMillionRequests + compute;
}

function invocationsOf(w: Workload, u: Usage): number {
  return u.requests + u.messages / w.messagesPerBatch + u.sweeps;
}

function dynamodbCost(resources: StackResources, prices: PriceTable, w: Workload, u: Usage): number {
  const writes =
    u.sessions * (w.writesPerJoin + w.otherWritesPerPlayer) +
    u.tasksStarted * w.writesPerRoom +
    u.heartbeats * w.writesPerHeartbeat;
  const reads = u.requests * w.readsPerRequest + u.sweeps * (w.sweeperFixedReads + u.rooms * w.sweeperReadsPerRoom);
  return (
    (writes / 1e6) * prices.dynamodb.perMillionWrites +
    (reads / 1e6) * prices.dynamodb.perMillionReads +
    w.storedGb *
      resources.tables *
      (prices.dynamodb.storageGbMonth + (resources.pointInTimeRecovery ? prices.dynamodb.pitrGbMonth : 0))
  );
}

function cloudwatchCost(resources: StackResources, prices: PriceTable, w: Workload, u: Usage): number {
  const logGb =
    (invocationsOf(w, u) * w.logBytesPerRequest +
      u.taskHours * 60 * w.logBytesPerTaskMinute +
      u.sweeps * w.logBytesPerSweep) /
    1e9;
  return (
    resources.alarmMetrics * prices.cloudwatch.alarmMetricMonth +
    resources.dashboards * prices.cloudwatch.dashboardMonth +
    (resources.containerInsights ? w.containerInsightsMetrics * prices.cloudwatch.metricMonth : 0) +
    logGb * (prices.cloudwatch.logsIngestedGb + prices.cloudwatch.logsStoredGbMonth)
  );
}

/** Every task has a public address on the internet, and scans of it that the security group rejects are logged. */
function flowLogCost(resources: StackResources, prices: PriceTable, w: Workload, u: Usage): number {
  if (resources.flowLogs === 0) return 0;
  const gb = (u.taskHours * w.flowLogRecordsPerAddressHour * w.flowLogRecordBytes) / 1e9;
  return gb * (prices.cloudwatch.vendedLogsGb + prices.cloudwatch.logsStoredGbMonth);
}

function perService(scenario: Scenario, prices: PriceTable, w: Workload, u: Usage): Record<Service, number> {
  const { resources } = scenario;
  const task = resources.tasks[0]!;
  const taskHour = task.arm
    ? task.vcpu * prices.fargate.armVcpuHour + task.memoryGB * prices.fargate.armGbHour
    : task.vcpu * prices.fargate.x86VcpuHour + task.memoryGB * prices.fargate.x86GbHour;
  // The default sampling rule records one request a second, then a share of the rest.
  const invocations = invocationsOf(w, u);
  const traced =
    Math.min(invocations, secondsPerMonth) + Math.max(0, invocations - secondsPerMonth) * w.xraySampledShare;
  // ECS reads the task's secrets at every start; the functions read theirs once per execution environment.
  const secretCalls = u.tasksStarted * (task.secretsReadAtStart + w.functionSecretReadsPerRoom);
  return {
    Fargate: u.taskHours * taskHour,
    'Public IPv4': u.taskHours * prices.publicIpv4Hour,
    Lambda: lambdaCost(resources, prices, w, u),
    'API Gateway': (u.requests / 1e6) * prices.httpApiPerMillion,
    DynamoDB: dynamodbCost(resources, prices, w, u),
    SQS: sqsCost(resources, prices, w, u),
    CloudWatch: cloudwatchCost(resources, prices, w, u),
    'VPC flow logs': flowLogCost(resources, prices, w, u),
    'X-Ray': (traced / 1e6) * prices.xrayPerMillionTraces,
    'Secrets Manager':
      resources.secrets * prices.secretsManager.secretMonth + (secretCalls / 1e4) * prices.secretsManager.per10kCalls,
    KMS: resources.kmsKeys * prices.kmsKeyMonth,
    ECR: resources.imageAssets * w.imageVersionsKept * w.imageAssetGb * prices.ecrStorageGbMonth,
    'Data transfer out (game traffic)':
      ((scenario.ccu * secondsPerMonth * w.bytesPerPlayerSecond) / 1e9) * prices.dataOutGb,
  };
}

function platformOf(byService: Readonly<Record<Service, number>>): number {
  return Object.entries(byService)
    .filter(([service]) => service !== 'Data transfer out (game traffic)')
    .reduce((sum, [, cost]) => sum + cost, 0);
}

function bill(
  scenario: Scenario,
  prices: PriceTable,
  w: Workload,
): { usage: Usage; byService: Record<Service, number> } {
  const { resources } = scenario;
  const overhead = roomOverhead(resources.settings, resources.tasks[0]!.stopS, w);
  const wait = playerWait(resources.settings, w, scenario.ccu * w.joinsPerSecondPerCcu);
  const usage = usageOf(scenario, w, overhead, wait);
  return { usage, byService: perService(scenario, prices, w, usage) };
}

function assertFitsCaps(scenario: Scenario, serversRunning: number, w: Workload): void {
  const { settings } = scenario.resources;
  if (serversRunning > settings.maxRunningServers) {
    throw new ScenarioExceedsCapError(scenario.name, 'maxRunningServers', serversRunning, settings.maxRunningServers);
  }
  const perConfiguration = serversRunning / w.configurations;
  if (perConfiguration > settings.maxServersPerConfiguration) {
    const cap = settings.maxServersPerConfiguration;
    throw new ScenarioExceedsCapError(scenario.name, 'maxServersPerConfiguration', perConfiguration, cap);
  }
}

/**
 * The monthly bill of one scenario, with the settings of its own template. Refuses a scenario
 * whose servers its template's caps would not let run (ScenarioExceedsCapError).
 */
export function monthlyCost(scenario: Scenario, prices: PriceTable, w: Workload): MonthlyCost {
  const { resources } = scenario;
  const task = resources.tasks[0];
  if (!task) throw new Error('The template has no task definition.');
  const { settings } = resources;
  const { usage, byService } = bill(scenario, prices, w);
  const serversRunning = usage.taskHours / hoursPerMonth;
  assertFitsCaps(scenario, serversRunning, w);
  const withoutStandby = bill({ ...scenario, standbyServers: 0 }, prices, w).byService;
  const total = Object.values(byService).reduce((sum, cost) => sum + cost, 0);
  return {
    scenario: scenario.name,
    ccu: scenario.ccu,
    settings,
    rooms: usage.rooms,
    roomsStartedPerMonth: usage.roomsStarted,
    overhead: roomOverhead(settings, task.stopS, w),
    wait: playerWait(settings, w, scenario.ccu * w.joinsPerSecondPerCcu),
    standbyServers: scenario.standbyServers,
    serversRunning,
    standbyCost: platformOf(byService) - platformOf(withoutStandby),
    byService,
    platform: platformOf(byService),
    total,
  };
}
