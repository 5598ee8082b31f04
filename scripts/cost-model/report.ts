import type { MonthlyCost, PriceTable, Service, StackResources, Workload } from './model';

const usd = (value: number) =>
  value >= 100 ? `$${Math.round(value).toLocaleString('en-US')}` : `$${value.toFixed(2)}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** The generated part of docs/cost-model.md: what was counted, and the bill per service. */
export function renderReport(
  resources: StackResources,
  prices: PriceTable,
  workload: Workload,
  costs: readonly MonthlyCost[],
): string {
  const byRole = (role: string) => resources.functions.filter((f) => f.role === role);
  const memories = (role: string) =>
    [...new Set(byRole(role).map((f) => `${f.memoryMB} MB${f.arm ? ' arm64' : ' x86'}`))].join(', ') || '—';
  const task = resources.tasks[0]!;
  const lines = [
    `Prices: us-east-1 list prices of ${prices.date} (sources in \`scripts/cost-model/inputs.ts\`).`,
    '',
    '**Counted in the synthesized template**',
    '',
    '| resource | count | size |',
    '| --- | --- | --- |',
    `| Lambda functions behind the API | ${byRole('route').length} | ${memories('route')} |`,
    `| queue consumers | ${byRole('consumer').length} | ${memories('consumer')} |`,
    `| scheduled functions | ${byRole('scheduled').length} | ${memories('scheduled')}, ${resources.schedulesPerHour.map((r) => `${r} runs/h`).join(', ')} |`,
    `| other functions (custom resources) | ${byRole('other').length} | ${memories('other')} |`,
    `| SQS queues | ${resources.queues.fifo + resources.queues.standard} | ${resources.queues.fifo} FIFO, ${resources.queues.standard} standard (dead-letter queues included) |`,
    `| DynamoDB tables | ${resources.tables} | on demand${resources.pointInTimeRecovery ? ', point-in-time recovery' : ''} |`,
    `| game server task definitions | ${resources.tasks.length} | ${task.vcpu} vCPU, ${task.memoryGB} GB, ${task.arm ? 'arm64' : 'x86-64'} |`,
    `| CloudWatch alarms / dashboards | ${resources.alarms} / ${resources.dashboards} | Container Insights ${resources.containerInsights ? 'on' : 'off'} |`,
    `| Secrets Manager secrets | ${resources.secrets} | |`,
    `| log groups | ${resources.logGroups} | |`,
    '',
    `**Monthly cost** (${workload.playersPerRoom} players a room, ${workload.sessionMinutes}-minute sessions, 730 h a month)`,
    '',
    `| | ${costs.map((c) => (c.ccu === 0 ? 'idle (0 CCU)' : `${count(c.ccu)} CCU`)).join(' | ')} |`,
    `| --- | ${costs.map(() => '---:').join(' | ')} |`,
    `| rooms running | ${costs.map((c) => count(c.rooms)).join(' | ')} |`,
    `| rooms started a month | ${costs.map((c) => count(c.roomsStartedPerMonth)).join(' | ')} |`,
  ];
  const services = Object.keys(costs[0]!.byService) as Service[];
  for (const service of services) {
    lines.push(`| ${service} | ${costs.map((c) => usd(c.byService[service])).join(' | ')} |`);
  }
  lines.push(`| **platform (without game traffic)** | ${costs.map((c) => `**${usd(c.platform)}**`).join(' | ')} |`);
  lines.push(`| per CCU, platform | ${costs.map((c) => (c.ccu === 0 ? '—' : usd(c.platform / c.ccu))).join(' | ')} |`);
  lines.push(`| **total with game traffic** | ${costs.map((c) => `**${usd(c.total)}**`).join(' | ')} |`);
  lines.push('', '**Where the money goes** (share of the platform cost)', '');
  lines.push(
    `| | ${costs
      .filter((c) => c.ccu > 0)
      .map((c) => `${count(c.ccu)} CCU`)
      .join(' | ')} |`,
  );
  lines.push(
    `| --- | ${costs
      .filter((c) => c.ccu > 0)
      .map(() => '---:')
      .join(' | ')} |`,
  );
  for (const service of services.filter((s) => s !== 'Data transfer out (game traffic)')) {
    const shares = costs
      .filter((c) => c.ccu > 0)
      .map((c) => `${((100 * c.byService[service]) / c.platform).toFixed(1)} %`);
    lines.push(`| ${service} | ${shares.join(' | ')} |`);
  }
  return lines.join('\n');
}
