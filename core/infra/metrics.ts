/**
 * Custom CloudWatch metrics in the Embedded Metric Format: one JSON line on stdout that the
 * Lambda log pipeline turns into metric data points, with no API call and no extra latency.
 * It is the format @aws-lambda-powertools/metrics writes (that package is not a dependency
 * of this project yet; the namespace and `service` dimension follow its POWERTOOLS_*
 * variables, so switching to it changes no alarm). Written straight to stdout, not through
 * `console`, which the JSON log format would wrap (and so hide from the extraction).
 *
 * Off outside Lambda (the local cloud and tests print nothing), and with
 * POWERTOOLS_METRICS_DISABLED=true.
 */

/** Namespace of the platform's own metrics (POWERTOOLS_METRICS_NAMESPACE overrides it). */
export const defaultMetricsNamespace = 'Roomkeeper';

export const spawnMetrics = {
  /** A game server that could not be started (RunTask refused, no capacity…). */
  failed: 'SpawnFailures',
  /** A game server that did not call `inited` before its spawn deadline. */
  timedOut: 'SpawnTimeouts',
} as const;
export type SpawnMetric = (typeof spawnMetrics)[keyof typeof spawnMetrics];

export interface MetricPoint {
  readonly namespace: string;
  readonly service: string;
  readonly name: string;
  readonly value: number;
  readonly unit: 'Count';
  readonly timestamp: number;
}

export type MetricSink = (line: string) => void;

function enabledByEnvironment(env: NodeJS.ProcessEnv): boolean {
  if (env.POWERTOOLS_METRICS_DISABLED?.toLowerCase() === 'true') return false;
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
}

let sink: MetricSink | undefined = (line) => process.stdout.write(`${line}\n`);
let forced = false;

/** Tests capture the lines here; `undefined` restores stdout. */
export function setMetricSink(next: MetricSink | undefined, options: { force?: boolean } = {}): void {
  sink = next ?? ((line) => process.stdout.write(`${line}\n`));
  forced = options.force ?? false;
}

/** The EMF document of one data point, with the `service` dimension (as Powertools writes it). */
export function emfLine(point: MetricPoint): string {
  return JSON.stringify({
    _aws: {
      Timestamp: point.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: point.namespace,
          Dimensions: [['service']],
          Metrics: [{ Name: point.name, Unit: point.unit }],
        },
      ],
    },
    service: point.service,
    [point.name]: point.value,
  });
}

/** Counts one event of `name`. Never throws: a metric must not fail the request it describes. */
export function countMetric(name: string, now: Date = new Date(), env: NodeJS.ProcessEnv = process.env): void {
  if (!forced && !enabledByEnvironment(env)) return;
  try {
    sink?.(
      emfLine({
        namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? defaultMetricsNamespace,
        service: env.POWERTOOLS_SERVICE_NAME ?? 'roomkeeper',
        name,
        value: 1,
        unit: 'Count',
        timestamp: now.getTime(),
      }),
    );
  } catch {
    // Best effort by design.
  }
}

/** A room failed its spawn: why decides which metric counts it. */
export function countSpawnFailure(reason: 'spawn-failed' | 'spawn-timeout', now?: Date): void {
  countMetric(reason === 'spawn-timeout' ? spawnMetrics.timedOut : spawnMetrics.failed, now);
}
