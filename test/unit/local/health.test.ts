import { checkHealth, ComponentDownError } from '../../../local/health';

describe('checkHealth', () => {
  it('reports every part up when every check resolves', async () => {
    const report = await checkHealth({ a: async () => 'fine', b: async () => undefined }, 1_000);

    expect(report).toEqual({ healthy: true, components: { a: 'up', b: 'up' }, problems: {} });
  });

  it('names each part that is down and why: hung, refused, known down', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    let aborted = false;

    const report = await checkHealth(
      {
        stalled: (signal) =>
          new Promise(() => {
            signal.addEventListener('abort', () => (aborted = true));
          }),
        ignoresAbort: () => new Promise(() => undefined),
        refused: async () => Promise.reject(refused),
        restarting: async () => Promise.reject(new ComponentDownError('restarting (killed by SIGKILL)')),
        fine: async () => undefined,
      },
      50,
    );

    expect(report).toEqual({
      healthy: false,
      components: { stalled: 'down', ignoresAbort: 'down', refused: 'down', restarting: 'down', fine: 'up' },
      problems: {
        stalled: 'no answer within 50 ms',
        ignoresAbort: 'no answer within 50 ms',
        refused: 'unreachable',
        restarting: 'restarting (killed by SIGKILL)',
      },
    });
    expect(aborted).toBe(true);
  });
});
