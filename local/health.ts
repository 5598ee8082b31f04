import { classifyDependencyError } from '../core/infra/dependency-errors';

/** One part of the local cloud: resolves if it is up, rejects (or never settles) if it is not. */
export type HealthCheck = (signal: AbortSignal) => Promise<unknown>;

export interface HealthReport {
  readonly healthy: boolean;
  readonly components: Readonly<Record<string, 'up' | 'down'>>;
  /** For each component that is down, why, in a few words. */
  readonly problems: Readonly<Record<string, string>>;
}

/** A part that is down for a known reason, without asking it (DynamoDB Local restarting). */
export class ComponentDownError extends Error {
  override readonly name = 'ComponentDownError';
}

function reason(error: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  if (error instanceof ComponentDownError) return error.message;
  const failure = classifyDependencyError(error);
  if (failure) return failure.kind;
  return error instanceof Error ? error.name : 'failed';
}

/**
 * Runs every check at once, each bounded by `timeoutMs` (its signal aborts then, and a check
 * that ignores the signal is judged down all the same), so the report never waits longer
 * than the slowest bound: a stalled dependency cannot hold `/health`.
 */
export async function checkHealth(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<HealthReport> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, string | undefined]> => {
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          abort.abort();
          resolve('timeout');
        }, timeoutMs);
      });
      try {
        const outcome = await Promise.race([check(abort.signal).then(() => 'ok' as const), deadline]);
        return [name, outcome === 'timeout' ? reason(undefined, timeoutMs, true) : undefined];
      } catch (error) {
        return [name, reason(error, timeoutMs, abort.signal.aborted)];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const components = Object.fromEntries(results.map(([name, problem]) => [name, problem ? 'down' : 'up'] as const));
  const problems = Object.fromEntries(results.filter((r): r is [string, string] => r[1] !== undefined));
  return { healthy: Object.keys(problems).length === 0, components, problems };
}
