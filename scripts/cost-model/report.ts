import type { MonthlyCost, PriceTable, Scenario, Service, Workload } from './model';

/** A scenario, and its bill. */
export interface PricedScenario {
  readonly scenario: Scenario;
  readonly cost: MonthlyCost;
}

const usd = (value: number) =>
  value >= 100 ? `$${Math.round(value).toLocaleString('en-US')}` : `$${value.toFixed(2)}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const seconds = (value: number) => `${Number(value.toFixed(1))} s`;
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
const columnName = (c: MonthlyCost) => (c.ccu === 0 ? `${c.scenario} (0 CCU)` : `${c.scenario} (${count(c.ccu)} CCU)`);
/** A list price as written on the pricing pages: cents always shown, small prices in full. */
const price = (value: number) => `$${Number(value.toFixed(2)) === value ? value.toFixed(2) : String(value)}`;
const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;

function table(header: readonly string[], rows: readonly (readonly string[])[], align?: readonly string[]): string[] {
  return [row(header), row(align ?? header.map(() => '---')), ...rows.map(row)];
}

function pricesTable(prices: PriceTable): string[] {
  const f = prices.fargate;
  return table(
    ['item', 'price'],
    [
      ['Fargate Linux x86-64', `${price(f.x86VcpuHour)} vCPU-h, ${price(f.x86GbHour)} GB-h`],
      ['Fargate Linux arm64', `${price(f.armVcpuHour)} vCPU-h, ${price(f.armGbHour)} GB-h`],
      ['public IPv4 address (one per task)', `${price(prices.publicIpv4Hour)} an hour`],
      [
        'Lambda',
        `${price(prices.lambda.perMillionRequests)} per million requests; arm64 ${price(prices.lambda.armGbSecond)}, x86 ${price(prices.lambda.x86GbSecond)} per GB-s`,
      ],
      ['API Gateway HTTP API', `${price(prices.httpApiPerMillion)} per million requests`],
      [
        'DynamoDB on demand',
        `${price(prices.dynamodb.perMillionWrites)} per million WRU, ${price(prices.dynamodb.perMillionReads)} per million RRU, ` +
          `${price(prices.dynamodb.storageGbMonth)} GB-month, PITR ${price(prices.dynamodb.pitrGbMonth)} GB-month`,
      ],
      [
        'SQS',
        `standard ${price(prices.sqs.standardPerMillion)}, FIFO ${price(prices.sqs.fifoPerMillion)} per million requests`,
      ],
      [
        'CloudWatch',
        `${price(prices.cloudwatch.alarmMetricMonth)} per alarm metric, dashboard ${price(prices.cloudwatch.dashboardMonth)}, ` +
          `metric ${price(prices.cloudwatch.metricMonth)} a month; logs ${price(prices.cloudwatch.logsIngestedGb)}/GB ingested, ` +
          `vended (flow) logs ${price(prices.cloudwatch.vendedLogsGb)}/GB, ${price(prices.cloudwatch.logsStoredGbMonth)} GB-month stored`,
      ],
      ['X-Ray (active tracing on every function)', `${price(prices.xrayPerMillionTraces)} per million traces`],
      [
        'Secrets Manager',
        `${price(prices.secretsManager.secretMonth)} a secret-month, ${price(prices.secretsManager.per10kCalls)} per 10,000 calls`,
      ],
      ['KMS customer managed key', `${price(prices.kmsKeyMonth)} a key-month`],
      ['ECR private storage', `${price(prices.ecrStorageGbMonth)} GB-month`],
      ['data transfer out to the internet', `${price(prices.dataOutGb)}/GB (first 10 TB)`],
    ],
  );
}

function workloadTable(w: Workload): string[] {
  return table(
    ['assumption', 'value', 'from'],
    [
      ['players per room', `${w.playersPerRoom}, rooms always full`, '`workload` in cdk/lib/scale/profiles.ts'],
      ['session', `${w.sessionMinutes} minutes; all players leave at its end`, 'the same'],
      [
        'join rate',
        `${Number((w.joinsPerSecondPerCcu * 1000).toFixed(3))} joins/s per 1,000 CCU (one join per player per session), through one matchmaking bucket`,
        'the same (steady state; the scale model sizes for peaks)',
      ],
      [
        'server start',
        `${w.serverStartS} s from RunTask to \`ready\``,
        'docs/ecs-fleet.md "Spawn times" (mid-size image)',
      ],
      [
        'polls after a 202',
        'one `GET /v1/rooms/{roomId}` every `Retry-After` of the 202 until ready',
        'code: `SPAWN_POLL_AFTER_S` in the template (per scenario below)',
      ],
      [
        'other HTTP calls',
        `the matchmaking join and ${w.leavesPerPlayer} leave per player, ${w.routeDurationMs} ms each`,
        'assumption',
      ],
      [
        'controller messages',
        `per room ${w.roomMessages} (\`inited\`, \`exited\`, a credential renewal); per player ${w.playerMessages} (\`joined\`, \`left\`); ${w.messagesPerBatch} a batch, ${w.consumerDurationMs} ms`,
        'code: core/protocol/controller-messages.ts; batch fill assumed',
      ],
      [
        'DynamoDB writes',
        `${w.writesPerJoin} WRU a join, ${w.otherWritesPerPlayer} more a player, ${w.writesPerRoom} a room, ${w.writesPerHeartbeat} a heartbeat`,
        'docs/sessions.md; the store code',
      ],
      [
        'sweeper',
        `${w.sweeperFixedReads} RRU of index queries + ${w.sweeperReadsPerRoom} read per live room a run, ${w.sweeperDurationMs} ms`,
        'code: core/rooms/sweep.ts, docs/sessions.md',
      ],
      [
        'reply queue',
        `${w.replyPollsPerMinute} long polls a minute per task; created and deleted once per task`,
        'code: containers/controller/bridge.ts',
      ],
      [
        'logs',
        `${count(w.logBytesPerRequest)} B an invocation, ${count(w.logBytesPerTaskMinute)} B a task-minute, ${count(w.logBytesPerSweep)} B a sweep`,
        'assumption',
      ],
      [
        'VPC flow logs (rejected flows)',
        `${w.flowLogRecordsPerAddressHour} records of ${w.flowLogRecordBytes} B per task address an hour`,
        'assumption: background scanning of public addresses',
      ],
      ['Container Insights', `${w.containerInsightsMetrics} metrics`, 'assumption'],
      [
        'ECR',
        `${w.imageVersionsKept} version of each image asset, ${w.imageAssetGb} GB compressed`,
        'assumption (`cdk gc` removes old ones)',
      ],
      ['X-Ray', `1 trace a second, then ${w.xraySampledShare * 100} % of invocations`, 'the default sampling rule'],
      [
        'game traffic to players',
        `${count(w.bytesPerPlayerSecond)} B/s per player`,
        'assumption: it depends on the game, so it is shown apart',
      ],
    ],
  );
}

function settingsTable(priced: readonly PricedScenario[]): string[] {
  const costs = priced.map((p) => p.cost);
  const each = (f: (c: MonthlyCost) => string) => costs.map(f);
  return table(
    ['', ...costs.map(columnName)],
    [
      [
        'running servers cap (per configuration)',
        ...each((c) => `${count(c.settings.maxRunningServers)} (${count(c.settings.maxServersPerConfiguration)})`),
      ],
      [
        'servers running on average (standby among them)',
        ...each((c) => `${count(c.serversRunning)} (${count(c.standbyServers)})`),
      ],
      ['heartbeat interval', ...each((c) => seconds(c.settings.heartbeatIntervalS))],
      ['create wait (a join or create holds its function)', ...each((c) => seconds(c.settings.createWaitS))],
      [
        'task time beyond the session: start + empty grace + sweep lag + stop',
        ...each(
          (c) =>
            `${seconds(c.overhead.totalS)}: ${c.overhead.startS} + ${c.overhead.emptyGraceS} + ${c.overhead.sweepLagS} + ${c.overhead.stopS}`,
        ),
      ],
      [
        'per player: function held, polls',
        ...each((c) => (c.ccu === 0 ? '—' : `${seconds(c.wait.holdS)}, ${Number(c.wait.polls.toFixed(1))}`)),
      ],
    ],
    ['---', ...costs.map(() => '---:')],
  );
}

function resourcesTable(priced: readonly PricedScenario[]): string[] {
  const all = priced.map((p) => p.scenario.resources);
  const each = (f: (r: Scenario['resources']) => string | number) => all.map((r) => String(f(r)));
  const fns = (r: Scenario['resources'], role: string) => r.functions.filter((f) => f.role === role).length;
  const task = (r: Scenario['resources']) => {
    const t = r.tasks[0]!;
    return `${t.vcpu} vCPU, ${t.memoryGB} GB, ${t.arm ? 'arm64' : 'x86-64'}`;
  };
  return table(
    ['counted in the template', ...priced.map((p) => p.scenario.name)],
    [
      [
        'functions: routes / consumers / scheduled / other',
        ...each((r) => ['route', 'consumer', 'scheduled', 'other'].map((k) => fns(r, k)).join(' / ')),
      ],
      ['SQS queues (FIFO / standard)', ...each((r) => `${r.queues.fifo} / ${r.queues.standard}`)],
      ['DynamoDB tables', ...each((r) => `${r.tables}${r.pointInTimeRecovery ? ', PITR' : ''}`)],
      ['game server task', ...each(task)],
      [
        'task stop bound / secrets ECS reads per start',
        ...each((r) => `${r.tasks[0]!.stopS} s / ${r.tasks[0]!.secretsReadAtStart}`),
      ],
      ['alarms (metrics billed) / dashboards', ...each((r) => `${r.alarms} (${r.alarmMetrics}) / ${r.dashboards}`)],
      ['Secrets Manager secrets / KMS keys', ...each((r) => `${r.secrets} / ${r.kmsKeys}`)],
      ['log groups / VPC flow logs', ...each((r) => `${r.logGroups} / ${r.flowLogs}`)],
      ['image assets (ECR)', ...each((r) => r.imageAssets)],
      ['Container Insights', ...each((r) => (r.containerInsights ? 'on' : 'off'))],
    ],
  );
}

function costTable(costs: readonly MonthlyCost[]): string[] {
  const services = Object.keys(costs[0]!.byService) as Service[];
  const each = (f: (c: MonthlyCost) => string) => costs.map(f);
  return table(
    ['', ...costs.map(columnName)],
    [
      ['rooms running', ...each((c) => count(c.rooms))],
      ['rooms started a month', ...each((c) => count(c.roomsStartedPerMonth))],
      ...services.map((s) => [s, ...each((c) => usd(c.byService[s]))]),
      ['**platform (without game traffic)**', ...each((c) => `**${usd(c.platform)}**`)],
      ['of which the standby servers', ...each((c) => usd(c.standbyCost))],
      ['per CCU, platform', ...each((c) => (c.ccu === 0 ? '—' : usd(c.platform / c.ccu)))],
      ['**total with game traffic**', ...each((c) => `**${usd(c.total)}**`)],
    ],
    ['---', ...costs.map(() => '---:')],
  );
}

function sharesTable(costs: readonly MonthlyCost[]): string[] {
  const busy = costs.filter((c) => c.ccu > 0);
  const services = (Object.keys(costs[0]!.byService) as Service[]).filter(
    (s) => s !== 'Data transfer out (game traffic)',
  );
  return table(
    ['share of the platform cost', ...busy.map(columnName)],
    services.map((s) => [s, ...busy.map((c) => percent(c.byService[s], c.platform))]),
    ['---', ...busy.map(() => '---:')],
  );
}

/** The figures the prose quotes, computed: the idle bill and what dominates the busy ones. */
function findings(costs: readonly MonthlyCost[]): string[] {
  const idle = costs.find((c) => c.ccu === 0);
  const busy = costs.filter((c) => c.ccu > 0);
  const lines: string[] = [];
  if (idle) {
    const top = (Object.entries(idle.byService) as [Service, number][])
      .filter(([, v]) => v >= 0.005)
      .sort(([, a], [, b]) => b - a)
      .map(([s, v]) => `${s} ${usd(v)}`);
    lines.push(
      `- **Idle**, with no player and no standby server, the stack with its defaults costs **${usd(idle.platform)} a month**: ${top.join(', ')}.`,
    );
  }
  if (busy.length > 0) {
    const servers = busy.map((c) => percent(c.byService.Fargate + c.byService['Public IPv4'], c.platform));
    const api = busy.map((c) => percent(c.byService['API Gateway'], c.platform));
    lines.push(
      `- **Game servers** (Fargate tasks and their public IPv4 addresses) are ${servers.join(', ')} of the platform cost (${busy.map((c) => c.scenario).join(', ')}).`,
      `- **Waiting for a server**: each player's join holds a function ${busy.map((c) => seconds(c.wait.holdS)).join(', ')} and polls the room ${busy.map((c) => Number(c.wait.polls.toFixed(1))).join(', ')} times on average; API Gateway is ${api.join(', ')} of the platform cost.`,
      `- **Standby servers** (the warm pool each profile assumes): ${busy
        .map((c) =>
          c.standbyServers === 0
            ? `none in ${c.scenario}`
            : `${count(c.standbyServers)} in ${c.scenario} cost ${usd(c.standbyCost)} a month (${usd(c.standbyCost / c.standbyServers)} each)`,
        )
        .join('; ')}.`,
    );
  }
  return lines;
}

/** The generated part of docs/cost-model.md: prices, assumptions, settings, what was counted, and the bill. */
export function renderReport(priced: readonly PricedScenario[], prices: PriceTable, workload: Workload): string {
  const costs = priced.map((p) => p.cost);
  return [
    '## Prices',
    '',
    `US East (N. Virginia) on-demand list prices in US dollars, transcribed on **${prices.date}** (no free tier, no Savings Plans, first volume tier only; re-check them before you rely on the figures). Sources: ${prices.sources.join(', ')}.`,
    '',
    ...pricesTable(prices),
    '',
    '## Workload (assumptions)',
    '',
    ...workloadTable(workload),
    '',
    '## Settings of each scenario (from its template)',
    '',
    ...settingsTable(priced),
    '',
    ...resourcesTable(priced),
    '',
    '## Results',
    '',
    `**Monthly cost** (730 h a month)`,
    '',
    ...costTable(costs),
    '',
    ...sharesTable(costs),
    '',
    ...findings(costs),
  ].join('\n');
}
