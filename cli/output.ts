import Table from 'cli-table3';
import type { CliIo } from './context';

/** The API's JSON as it answered, for scripts (`--json`). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON value per line, for commands that follow something (`watch`, `tail`). */
export function printJsonLine(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value)}\n`);
}

type Cell = string | number | boolean | null | undefined;

const text = (cell: Cell): string => (cell === undefined || cell === null ? '' : String(cell));

/** A table for people; colourless, so it reads the same in a pipe and in a terminal. */
export function printTable(
  io: CliIo,
  head: readonly string[],
  rows: readonly (readonly Cell[])[],
  empty: string,
): void {
  if (rows.length === 0) {
    io.stdout(`${empty}\n`);
    return;
  }
  const table = new Table({ head: [...head], style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map(text));
  io.stdout(`${table.toString()}\n`);
}

/** One object as `key  value` lines; nested values as compact JSON (a table would wrap them). */
export function printFields(io: CliIo, fields: Record<string, unknown>): void {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  for (const [key, value] of entries)
    io.stdout(
      `${key.padEnd(width)}  ${typeof value === 'object' && value !== null ? JSON.stringify(value) : text(value as Cell)}\n`,
    );
}

/** How long ago an ISO time was, as people say it: `4s`, `3m`, `2h`, `5d`. */
export function ago(iso: string | undefined, now: Date): string {
  if (iso === undefined) return '';
  const s = Math.round((now.getTime() - Date.parse(iso)) / 1000);
  return `${duration(s)} ago`;
}

/** A duration in whole seconds, in its largest unit. */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '';
  const s = Math.abs(seconds);
  const sign = seconds < 0 ? '-' : '';
  if (s < 120) return `${sign}${s}s`;
  if (s < 7200) return `${sign}${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${sign}${Math.floor(s / 3600)}h`;
  return `${sign}${Math.floor(s / 86_400)}d`;
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Runs `work` with a spinner and `label` on stderr, drawn only when stderr is a terminal, so
 * piped output and scripts never see it.
 */
export async function withProgress<T>(io: CliIo, label: string, work: () => Promise<T>): Promise<T> {
  if (!io.stderrIsTTY) return work();
  let n = 0;
  const draw = () => io.stderr(`\r${frames[n++ % frames.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 80);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    io.stderr(`\r${' '.repeat(label.length + 2)}\r`);
  }
}
