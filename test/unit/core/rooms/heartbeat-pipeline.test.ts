import { handBackVisibilityS, PipelineReporter } from '../../../../core/rooms/heartbeat-pipeline';
import type { PipelineReport } from '../../../../core/rooms/sweeper-state-store';

const policy = { heartbeatTimeoutS: 10, heartbeatIntervalS: 2 };
const t0 = Date.parse('2026-01-01T00:10:00.000Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);

describe('handBackVisibilityS', () => {
  it.each([
    ['1', 1],
    ['2', 2],
    ['3', 4],
    ['4', 4],
    ['5', 4],
    [undefined, 1],
    ['nonsense', 1],
  ])('delivery %s failed → visible again after %i s (never the queue timeout of 60 s)', (count, expected) => {
    expect(handBackVisibilityS(count, policy)).toBe(expected);
  });

  it('stays within half the heartbeat timeout for any delivery', () => {
    for (let n = 1; n <= 100; n++)
      expect(handBackVisibilityS(String(n), policy)).toBeLessThanOrEqual(policy.heartbeatTimeoutS / 2);
  });
});

describe('PipelineReporter', () => {
  const store = () => {
    const reports: PipelineReport[] = [];
    return {
      reports,
      report: async (r: PipelineReport) => {
        reports.push(r);
      },
    };
  };

  it('writes a disruption only once something can be applied again, and before any heardAt', async () => {
    const reporter = new PipelineReporter(policy);
    const s = store();
    // DynamoDB stalled: nothing applied, a joined failed.
    await reporter.report({ applied: 0, disrupted: true, fresh: false }, at(0), s);
    await reporter.report({ applied: 0, disrupted: true, fresh: false }, at(9), s);
    expect(s.reports).toEqual([]);
    // Back: the first invocation that applies anything reports the disruption, not the fresh beat.
    await reporter.report({ applied: 3, disrupted: false, fresh: true }, at(25), s);
    expect(s.reports).toEqual([{ disruptedAt: at(25) }]);
    await reporter.report({ applied: 3, disrupted: false, fresh: true }, at(26), s);
    expect(s.reports).toEqual([{ disruptedAt: at(25) }, { heardAt: at(26) }]);
  });

  it('refreshes heardAt at most once per heartbeat interval', async () => {
    const reporter = new PipelineReporter(policy);
    const s = store();
    for (let ms = 0; ms <= 4_000; ms += 500)
      await reporter.report({ applied: 1, disrupted: false, fresh: true }, new Date(t0 + ms), s);
    expect(s.reports).toEqual([{ heardAt: at(0) }, { heardAt: at(2) }, { heardAt: at(4) }]);
  });

  it('keeps a disruption whose write failed for the next invocation', async () => {
    const reporter = new PipelineReporter(policy);
    const failing = { report: async () => Promise.reject(new Error('timeout')) };
    await expect(reporter.report({ applied: 1, disrupted: true, fresh: false }, at(0), failing)).rejects.toThrow();
    const s = store();
    await reporter.report({ applied: 1, disrupted: false, fresh: true }, at(1), s);
    expect(s.reports).toEqual([{ disruptedAt: at(1) }]);
  });

  it('classifies an applied heartbeat by the time SQS received it', () => {
    const reporter = new PipelineReporter(policy);
    expect(reporter.lagOf(String(t0 - 100), at(0))).toBe('fresh');
    expect(reporter.lagOf(String(t0 - 20_000), at(0))).toBe('late');
    expect(reporter.lagOf('0', at(0))).toBeUndefined();
    expect(reporter.lagOf(undefined, at(0))).toBeUndefined();
  });
});
