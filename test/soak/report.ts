import type { BenchReport } from '../bench/report';
import { describeLatency, type LatencySummary } from '../bench/stats';
import { verdictOf, type MemorySample, type Requirement } from './verdicts';

export interface FaultOutcome {
  readonly name: string;
  readonly detail: string;
  /** From the fault until the platform served again (or the broken room was resolved). */
  readonly recoveredAfterMs: number | undefined;
  /** Requests that got no answer within the client's timeout while the part was down. */
  readonly hangs?: number;
  /** When the fault was injected (ms since the traffic started), for the client-side recovery figure. */
  readonly fromMs?: number;
}

export interface SoakReport {
  readonly date: string;
  readonly commit: string | undefined;
  readonly machine: BenchReport['machine'];
  readonly loadAverage: BenchReport['loadAverage'];
  readonly minutes: number;
  readonly faultsInjected: boolean;
  readonly requests: number;
  readonly seatsConfirmed: number;
  readonly seatsLeft: number;
  readonly roomsSeen: number;
  readonly statuses: Record<string, number>;
  readonly latencies: Record<string, LatencySummary>;
  readonly memory: readonly MemorySample[];
  readonly faults: readonly FaultOutcome[];
  readonly requirements: Requirement[];
}

export function soakMarkdown(report: SoakReport): string {
  const m = report.machine;
  const lines = [
    `# Roomkeeper soak: ${report.minutes} minutes${report.faultsInjected ? ' with faults' : ''}`,
    '',
    `Run ${report.date.slice(0, 16).replace('T', ' ')} UTC at commit ${report.commit ?? 'unknown'} on ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}. Load average ${report.loadAverage.before.toFixed(1)} → ${report.loadAverage.after.toFixed(1)}.`,
    '',
    `${report.requests} requests; ${report.seatsConfirmed} seats confirmed by the games (\`joined\`), ${report.seatsLeft} left again; ${report.roomsSeen} rooms.`,
    '',
    '## Requirements',
    '',
    '| requirement | | detail |',
    '| --- | --- | --- |',
    ...report.requirements.map(
      (r) =>
        `| ${r.name} | ${{ PASS: '✅ PASS', FAIL: '❌ FAIL', 'NOT JUDGED': '— not judged' }[verdictOf(r)]} | ${r.detail.replace(/\|/g, '\\|')} |`,
    ),
    '',
    '## Faults',
    '',
    '| fault | recovered after | what happened |',
    '| --- | --- | --- |',
    ...report.faults.map(
      (f) =>
        `| ${f.name} | ${f.recoveredAfterMs === undefined ? 'not recovered' : `${(f.recoveredAfterMs / 1000).toFixed(1)} s`} | ${f.detail.replace(/\|/g, '\\|')} |`,
    ),
    '',
    '## Latency by operation (successful answers)',
    '',
    '```',
    ...Object.entries(report.latencies).map(
      ([op, s]) => `${op.padEnd(16)} n=${String(s.n).padStart(6)}  ${describeLatency(s)}`,
    ),
    '```',
    '',
    '## Answers by status',
    '',
    '```',
    ...Object.entries(report.statuses)
      .sort((a, b) => b[1] - a[1])
      .map(([status, count]) => `${status.padEnd(28)} ${count}`),
    '```',
    '',
    '## Platform memory (RSS)',
    '',
    '```',
    ...report.memory
      .filter((_, i, all) => i % Math.max(1, Math.ceil(all.length / 20)) === 0)
      .map((s) => `${s.atS.toFixed(0).padStart(5)} s  ${s.rssMb.toFixed(0)} MB`),
    '```',
    '',
  ];
  return lines.join('\n');
}
