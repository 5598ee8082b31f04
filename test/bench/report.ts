import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import { renderBarChart } from './charts';
import { describeTarget, formatMs, formatRatio, meets } from './stats';
import type { HeadlineRow, ScenarioSummary } from './summary';
import type { WarmupResult } from './warmup';

/** A scenario's raw measurements (kept in the JSON) and what it tells a reader. */
export interface ScenarioOutcome {
  readonly summary: ScenarioSummary;
  readonly result: unknown;
}

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
  readonly results: ScenarioOutcome[];
}

export const resultsDir = join(__dirname, '../../bench/results');
export const reportsDir = join(__dirname, '../../bench/reports');

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

export interface ReportPlace {
  readonly dir: string;
  readonly json: string;
  readonly markdown: string;
}

/**
 * Where a run's report goes: `bench/results/latest.{json,md}` (git-ignored), or with
 * `--publish` a dated directory under bench/reports/ that is meant to be committed.
 * Charts go to `charts/` beside the Markdown, which links them relatively.
 */
export function reportPlace(publish: boolean, date: string): ReportPlace {
  if (!publish)
    return { dir: resultsDir, json: join(resultsDir, 'latest.json'), markdown: join(resultsDir, 'latest.md') };
  const dir = join(reportsDir, date.slice(0, 10));
  return { dir, json: join(dir, 'results.json'), markdown: join(dir, 'README.md') };
}

export function writeReport(report: BenchReport, place: ReportPlace): { json: string; markdown: string } {
  const chartsDir = join(place.dir, 'charts');
  mkdirSync(chartsDir, { recursive: true });
  const { json, markdown } = place;
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  for (const { summary } of report.results)
    for (const chart of summary.charts) writeFileSync(join(chartsDir, `${chart.id}.svg`), renderBarChart(chart));
  writeFileSync(markdown, toMarkdown(report));
  return { json, markdown };
}

const mark = (row: HeadlineRow) => (row.target === undefined ? '' : meets(row.ratio, row.target) ? '✅' : '❌');

export function toMarkdown(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# Roomkeeper bench results${report.quick ? ' (quick run)' : ''}`,
    '',
    `Measured ${report.date.slice(0, 16).replace('T', ' ')} UTC at commit ${report.commit ?? 'unknown'} on ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node} (${m.platform}). Load average ${report.loadAverage.before.toFixed(1)} at the start, ${report.loadAverage.after.toFixed(1)} at the end.`,
    '',
    "Every ratio compares Roomkeeper with raw parts (or a peer) measured in the same run on the same machine, the same way, so that the machine's own speed and load cancel out as far as they can. Absolute figures on another machine will differ; the ratios should hold roughly.",
    '',
  ];
  const rows = report.results.flatMap((r) => r.summary.rows);
  if (rows.length > 0) {
    lines.push(
      '| scenario | figure | compared with | ratio | reading | target | |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const row of rows)
      lines.push(
        `| ${row.scenario} | ${row.figure} | ${row.baseline} | ${formatRatio(row.ratio)} | ${row.reading ?? ''} | ${row.target ? describeTarget(row.target) : ''} | ${mark(row)} |`,
      );
    lines.push('');
  }
  if (report.warmup)
    lines.push(
      `Warm-up: ${report.warmup.operations} mixed operations in ${(report.warmup.durationMs / 1000).toFixed(1)} s; UpdateItem p50 by second: ${report.warmup.updateP50BySecond.map((v) => formatMs(v)).join(', ')}.`,
      '',
    );
  for (const { summary } of report.results) {
    lines.push(`## ${summary.title}`, '');
    for (const chart of summary.charts) lines.push(`![${chart.title}](charts/${chart.id}.svg)`, '');
    lines.push('```', ...summary.lines, '```', '');
  }
  return `${lines.join('\n')}`;
}
