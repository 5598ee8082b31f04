import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import type { CreateToReadyResult } from './scenarios/create-to-ready';
import type { HotRoomResult } from './scenarios/hot-room';
import type { JoinLatencyResult } from './scenarios/join-latency';
import type { WarmupResult } from './warmup';
import { describeTarget, formatMs, formatRatio, type LatencySummary } from './stats';

export type ScenarioResult = JoinLatencyResult | HotRoomResult | CreateToReadyResult;

export interface BenchReport {
  readonly date: string;
  readonly quick: boolean;
  readonly machine: {
    readonly hostname: string;
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
  };
  /** The 1-minute load average when the run started and ended. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly commit: string | undefined;
  readonly warmup: WarmupResult | undefined;
  readonly results: ScenarioResult[];
}

export const resultsDir = join(__dirname, '../../bench/results');

export function describeMachine(): BenchReport['machine'] {
  const cpu = cpus();
  return {
    hostname: hostname(),
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

export function currentCommit(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return undefined;
  }
}

const latency = (s: LatencySummary) => `p50 ${formatMs(s.p50)}  p90 ${formatMs(s.p90)}  p99 ${formatMs(s.p99)}`;
const verdict = (meets: boolean) => (meets ? 'meets target' : 'MISSES target');
const errorsLine = (errors: number, statuses: Record<string, number>) =>
  errors === 0 ? '0' : `${errors} ${JSON.stringify(statuses)}`;

/** The lines a scenario prints on stdout and puts in the Markdown summary. */
export function describeResult(result: ScenarioResult): string[] {
  switch (result.scenario) {
    case 'join':
      return [
        `join latency: ${result.joins} sequential joins over HTTP, rooms of 100 filled one after another (${result.rooms} rooms)`,
        `  POST /v1/rooms/{id}/join       ${latency(result.join)}   ${result.throughputPerSecond.toFixed(0)} joins/s   errors ${errorsLine(result.errors, result.errorStatuses)}`,
        `  conditional UpdateItem         ${latency(result.baseline.update)}`,
        `  loopback HTTP echo             ${latency(result.baseline.echo)}`,
        `  UpdateItem + echo (baseline)   ${latency(result.baseline.sum)}   (interleaved, same run)`,
        `  RATIO join p50 / baseline p50  ${formatRatio(result.ratio)}   target ${describeTarget(result.target)}   ${verdict(result.meetsTarget)}`,
      ];
    case 'hot-room':
      return [
        `hot room: ${result.players} concurrent players filling ${result.rooms} rooms of 100 one after another`,
        `  successful joins               ${result.joins} in ${(result.elapsedMs / 1000).toFixed(2)} s = ${result.joinsPerSecond.toFixed(0)} joins/s   ${latency(result.join)}`,
        `  last answer (late ROOM_FULLs)  after ${(result.drainedMs / 1000).toFixed(2)} s`,
        `  ROOM_FULL at room ends         ${result.fullAnswers}   errors ${errorsLine(result.errors, result.errorStatuses)}`,
        `  raw conditional ADD, 1 item    ${result.baseline.perSecond.toFixed(0)} /s from ${result.players} callers (before ${result.baseline.before.perSecond.toFixed(0)}, after ${result.baseline.after.perSecond.toFixed(0)})`,
        `  this process's CPU while filling ${result.processCpu.msPerJoin.toFixed(2)} ms per join, ${(100 * result.processCpu.shareOfOneCore).toFixed(0)} % of one core (client + API + handlers)`,
        `  RATIO joins/s / raw updates/s  ${formatRatio(result.ratio)}   target ${describeTarget(result.target)}   ${verdict(result.meetsTarget)}`,
        `  the claim alone, no API        ${result.documentFill.sample.perSecond.toFixed(0)} claims/s filling the same rooms = ${formatRatio(result.documentFill.ratio)} of raw (the ceiling here); joins reach ${(100 * result.documentFill.reached).toFixed(0)} % of it`,
        `  exactness                      over-fill ${result.exactness.overfill}, ${result.exactness.exact ? 'every room: 99 winners for 99 free slots, players = 100 = members' : `NOT EXACT: ${result.exactness.problems.slice(0, 5).join('; ')}`}`,
      ];
    case 'create':
      return [
        `create-to-ready: ${result.rounds} rooms of the sample game, one after another`,
        `  POST /v1/rooms → 201 (ready)   ${latency(result.create)}`,
        `  game start → inited (alone)    ${latency(result.gameAlone)}   (baseline, same run)`,
        `  platform share                 ${formatMs(result.platformShareMs)}   RATIO create p50 / game p50 ${formatRatio(result.ratio)}`,
      ];
  }
}

export function writeReport(report: BenchReport): { json: string; markdown: string } {
  mkdirSync(resultsDir, { recursive: true });
  const json = join(resultsDir, 'latest.json');
  const markdown = join(resultsDir, 'latest.md');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, toMarkdown(report));
  return { json, markdown };
}

export function toMarkdown(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# Bench results${report.quick ? ' (quick)' : ''}`,
    '',
    `${report.date} · commit ${report.commit ?? 'unknown'} · ${m.hostname}: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node} (${m.platform}) · load average ${report.loadAverage.before.toFixed(1)} → ${report.loadAverage.after.toFixed(1)}`,
    '',
    'Each ratio compares the platform with raw parts measured in the same run, on the same DynamoDB Local and SDK client factory.',
    '',
  ];
  const ratios = report.results.filter((r) => r.scenario !== 'create');
  if (ratios.length > 0) {
    lines.push('| scenario | figure | baseline | ratio | target | |', '| --- | --- | --- | --- | --- | --- |');
    for (const r of ratios) {
      if (r.scenario === 'join')
        lines.push(
          `| join | p50 ${formatMs(r.join.p50)} | UpdateItem + echo p50 ${formatMs(r.baseline.sum.p50)} | ${formatRatio(r.ratio)} | ${describeTarget(r.target)} | ${r.meetsTarget ? '✅' : '❌'} |`,
        );
      else
        lines.push(
          `| hot room, ${r.players} players | ${r.joinsPerSecond.toFixed(0)} joins/s | ${r.baseline.perSecond.toFixed(0)} updates/s | ${formatRatio(r.ratio)} | ${describeTarget(r.target)} | ${r.meetsTarget ? '✅' : '❌'} |`,
        );
    }
    lines.push('');
  }
  if (report.warmup)
    lines.push(
      `Warm-up: ${report.warmup.operations} mixed operations in ${(report.warmup.durationMs / 1000).toFixed(1)} s; UpdateItem p50 by second: ${report.warmup.updateP50BySecond.map((v) => formatMs(v)).join(', ')}.`,
      '',
    );
  for (const r of report.results) lines.push('```', ...describeResult(r), '```', '');
  return `${lines.join('\n')}`;
}
