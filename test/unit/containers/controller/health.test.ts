import { startHealthChecks, statusProbe, type ProbeVerdict } from '../../../../containers/controller/health';
import type { GameCalls } from '../../../../containers/controller/rpc/game-calls';

describe('startHealthChecks', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const answerAfter = (ms: number, verdict: ProbeVerdict) => () =>
    new Promise<ProbeVerdict>((resolve) => setTimeout(() => resolve(verdict), ms));

  it('probes every interval from the start of the previous probe and never calls a slow answer hung', async () => {
    const hung: string[] = [];
    let probes = 0;
    const probe = answerAfter(400, { ok: true });
    const ticker = startHealthChecks({
      intervalMs: 1_000,
      probe: () => {
        probes += 1;
        return probe();
      },
      onHung: (why) => hung.push(why),
    });
    await jest.advanceTimersByTimeAsync(999);
    expect(probes).toBe(0);
    // Probes start at 1 s, 2 s, … 10 s: each answer (400 ms) is inside its interval.
    await jest.advanceTimersByTimeAsync(9_001);
    expect(probes).toBe(10);
    expect(hung).toEqual([]);
    ticker.stop();
  });

  it('runs the first probe at firstProbeAfterMs, then every interval', async () => {
    let probes = 0;
    const ticker = startHealthChecks({
      intervalMs: 1_000,
      firstProbeAfterMs: 0,
      probe: async () => {
        probes += 1;
        return { ok: true };
      },
      onHung: () => undefined,
    });
    await jest.advanceTimersByTimeAsync(1);
    expect(probes).toBe(1);
    await jest.advanceTimersByTimeAsync(998);
    expect(probes).toBe(1);
    await jest.advanceTimersByTimeAsync(2);
    expect(probes).toBe(2);
    ticker.stop();
  });

  it('waits for an answer slower than the interval before the next probe', async () => {
    let probes = 0;
    const probe = answerAfter(1_500, { ok: true });
    const ticker = startHealthChecks({
      intervalMs: 1_000,
      probe: () => {
        probes += 1;
        return probe();
      },
      onHung: () => undefined,
    });
    // Probes start at 1 s, 2.5 s, 4 s, 5.5 s and 7 s: each right after the previous answer (timers add 1 ms each).
    await jest.advanceTimersByTimeAsync(1_000 + 1_500 * 4 + 10);
    expect(probes).toBe(5);
    ticker.stop();
  });

  it('reports hung once, on the first failed probe, and stops probing', async () => {
    const hung: string[] = [];
    let probes = 0;
    startHealthChecks({
      intervalMs: 100,
      probe: async () => {
        probes += 1;
        return probes === 3 ? { ok: false, why: 'no answer' } : { ok: true };
      },
      onHung: (why) => hung.push(why),
    });
    await jest.advanceTimersByTimeAsync(2_000);
    expect(hung).toEqual(['no answer']);
    expect(probes).toBe(3);
  });

  it('does nothing once stopped, even when a probe was in flight', async () => {
    const hung: string[] = [];
    const ticker = startHealthChecks({
      intervalMs: 100,
      probe: answerAfter(50, { ok: false, why: 'late' }),
      onHung: (w) => hung.push(w),
    });
    await jest.advanceTimersByTimeAsync(120);
    ticker.stop();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(hung).toEqual([]);
  });
});

describe('statusProbe', () => {
  const callsAnswering = (outcome: Awaited<ReturnType<GameCalls['call']>>) => ({ call: async () => outcome });

  it.each([
    ['{"status":"ok"}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'ok' } } }, true],
    [
      '{"status":"ok"} with more fields',
      { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'ok', players: 3 } } },
      true,
    ],
    ['{"status":"OK"}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'OK' } } }, true],
    ['{"status":"Ok"}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'Ok' } } }, true],
    ['{"status":"okay"}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'okay' } } }, false],
    ['{"status":"busy"}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 'busy' } } }, false],
    ['{"status":1}', { kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: { status: 1 } } }, false],
    [
      'an error',
      { kind: 'answered', response: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } } },
      false,
    ],
    ['no answer in time', { kind: 'timeout' }, false],
    ['a socket that takes nothing', { kind: 'unreachable' }, false],
  ] as const)('judges %s', async (_, outcome, ok) => {
    const verdict = await statusProbe(callsAnswering(outcome as never), 1_000)();
    expect(verdict.ok).toBe(ok);
  });
});
