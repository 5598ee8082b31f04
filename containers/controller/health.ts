import { controllerMethods } from '../../core/protocol/game-methods';
import type { Ticker } from './heartbeat';
import type { GameCalls } from './rpc/game-calls';

/** One status probe's verdict: `ok`, or why the game counts as hung. */
export type ProbeVerdict = { readonly ok: true } | { readonly ok: false; readonly why: string };

export interface HealthCheckOptions {
  /** STATUS_INTERVAL_S in ms: from the start of one probe to the start of the next. */
  readonly intervalMs: number;
  /** When the first probe runs, after the start; default `intervalMs`. */
  readonly firstProbeAfterMs?: number;
  /** Sends `status` and judges the answer; must settle within STATUS_TIMEOUT_S. */
  readonly probe: () => Promise<ProbeVerdict>;
  readonly onHung: (why: string) => void;
}

/**
 * Calls `status` on the game every interval, one probe at a time, so a slow answer within
 * the timeout never stacks probes and never counts against the game:
 *
 *   inited ──interval──► probe ─answer ok (any time ≤ timeout)─► …interval from probe start… ► probe
 *                          └─ no answer in time, or anything but {status:"ok"} (any case) ─► onHung
 */
export function startHealthChecks(options: HealthCheckOptions): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const check = async () => {
    const started = Date.now();
    const verdict = await options.probe();
    if (stopped) return;
    if (!verdict.ok) {
      stopped = true;
      options.onHung(verdict.why);
      return;
    }
    timer = setTimeout(check, Math.max(0, options.intervalMs - (Date.now() - started)));
  };
  timer = setTimeout(check, options.firstProbeAfterMs ?? options.intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * One `status` call on the game, judged: only `{"status":"ok"}` (in any case: `"OK"` is what
 * every other result of the protocol says) within `timeoutMs` is healthy.
 */
export function statusProbe(calls: Pick<GameCalls, 'call'>, timeoutMs: number): () => Promise<ProbeVerdict> {
  return async () => {
    const outcome = await calls.call('status', {}, timeoutMs);
    switch (outcome.kind) {
      case 'cancelled':
        // The controller is stopping; nothing to judge.
        return { ok: true };
      case 'timeout':
        return { ok: false, why: `no status answer within ${timeoutMs} ms` };
      case 'unreachable':
        return { ok: false, why: 'status could not be sent' };
      case 'answered': {
        const { response } = outcome;
        const ok = 'result' in response && controllerMethods.status.result.safeParse(response.result).success;
        return ok
          ? { ok: true }
          : { ok: false, why: 'status answered with something other than {"status":"ok"} (any case)' };
      }
    }
  };
}
