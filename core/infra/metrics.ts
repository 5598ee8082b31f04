import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Custom CloudWatch metrics through Powertools metrics: one Embedded Metric Format line on
 * stdout per event, which the Lambda log pipeline turns into a data point, with no API call
 * and no extra latency. Namespace and `service` dimension follow Powertools' variables
 * (POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME).
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

export const sweeperMetrics = {
  /** A phase of a room sweeper run (rooms, orphans, ECS hosts, table upgrade) that failed; the others still ran. */
  phaseFailed: 'SweeperPhaseFailures',
} as const;

export const historyMetrics = {
  /** Spawn/kill history events the taps consumer could not write (core/rooms/history-store.ts); the taps went on. */
  writeFailed: 'HistoryWriteFailures',
} as const;

export const versionMetrics = {
  /** A client refused because its network components differ from the server's (docs/versions.md). */
  protocolMismatches: 'ProtocolMismatches',
} as const;

function enabledByEnvironment(env: NodeJS.ProcessEnv): boolean {
  if (env.POWERTOOLS_METRICS_DISABLED?.toLowerCase() === 'true') return false;
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
}

let forced = false;

/** Tests emit outside Lambda too (and read the lines from stdout). */
export function forceMetrics(on: boolean): void {
  forced = on;
}

/** One single-metric publisher per namespace and service: each event is flushed at once. */
const publishers = new Map<string, Metrics>();

function publisherFor(namespace: string, serviceName: string): Metrics {
  const key = `${namespace}\u0000${serviceName}`;
  let metrics = publishers.get(key);
  if (!metrics) {
    metrics = new Metrics({ namespace, serviceName, singleMetric: true });
    publishers.set(key, metrics);
  }
  return metrics;
}

/** Counts one event of `name`. Never throws: a metric must not fail the request it describes. */
export function countMetric(name: string, now: Date = new Date(), env: NodeJS.ProcessEnv = process.env): void {
  if (!forced && !enabledByEnvironment(env)) return;
  try {
    const metrics = publisherFor(
      env.POWERTOOLS_METRICS_NAMESPACE ?? defaultMetricsNamespace,
      env.POWERTOOLS_SERVICE_NAME ?? 'roomkeeper',
    );
    metrics.setTimestamp(now);
    metrics.addMetric(name, MetricUnit.Count, 1);
  } catch {
    // Best effort by design.
  }
}

/** A room failed its spawn: why decides which metric counts it. */
export function countSpawnFailure(reason: 'spawn-failed' | 'spawn-timeout', now?: Date): void {
  countMetric(reason === 'spawn-timeout' ? spawnMetrics.timedOut : spawnMetrics.failed, now);
}
