import type { Target } from './stats';

/**
 * What a scenario tells a reader, whatever it measured: the lines printed on stdout (and
 * quoted in the report), the rows of the report's headline table, and the charts drawn for
 * it. Each scenario module builds its own summary from its raw result, so the report knows
 * no scenario and a new scenario touches no shared switch.
 */
export interface ScenarioSummary {
  /** A short stable id: file names of its charts derive from it. */
  readonly id: string;
  readonly title: string;
  readonly lines: readonly string[];
  readonly rows: readonly HeadlineRow[];
  readonly charts: readonly BarChart[];
}

/** One row of the report's headline table: a figure, what it is compared with, the ratio. */
export interface HeadlineRow {
  readonly scenario: string;
  readonly figure: string;
  readonly baseline: string;
  /** figure ÷ baseline, as the scenario defines it (NaN when it could not be measured). */
  readonly ratio: number;
  /** Absent for figures reported without a target. */
  readonly target?: Target;
  /** Words a reader needs to read the ratio the right way round ("lower is better"). */
  readonly reading?: string;
}

/**
 * A horizontal bar chart: one bar per value, grouped by `series` (drawn in its colour), so
 * a figure and its baseline (or Roomkeeper and its peer) sit side by side.
 */
export interface BarChart {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly bars: readonly Bar[];
  /** A vertical marker line, e.g. a target. */
  readonly marker?: { readonly label: string; readonly value: number };
}

export interface Bar {
  readonly label: string;
  readonly value: number;
  readonly series: 'roomkeeper' | 'baseline' | 'peer' | 'ceiling';
}
