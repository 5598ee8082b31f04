import { processTreeAlive } from '../../helpers/processes';
import { closeHarness, expectNoLeftovers, sleep, withSidecar, type SidecarRun } from './harness';

/**
 * Health checks: after `inited` the controller calls `status` every STATUS_INTERVAL_S and
 * kills a game that does not answer {"status":"ok"} (any case) within STATUS_TIMEOUT_S, but never one
 * that is slow and still answers. Interval 0.5 s, timeout 1 s here.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

async function readyAt(run: SidecarRun): Promise<number> {
  const answer = await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
  return answer.at;
}

describe('controller sidecar: health checks', () => {
  it.concurrent('kills a game that stops answering status and reports hung', async () => {
    await withSidecar({ args: ['hang-status'] }, async (run) => {
      const ready = await readyAt(run);
      const gamePid = run.gamePid ?? 0;
      const report = await run.exitReport();
      const detected = (run.received.find((r) => r.message.type === 'exited')?.receivedAt ?? 0) - ready;
      process.stdout.write(
        `hung game: expected ≈ 1500 ms (interval 500 + timeout 1000), reported after ${detected} ms\n`,
      );
      expect(report).toMatchObject({ reason: 'hung', signal: 'SIGKILL' });
      expect(processTreeAlive(gamePid)).toBe(false);
      expect(detected).toBeGreaterThanOrEqual(1_400);
      expect(detected).toBeLessThan(3_000);
      expect((await run.exited).code).toBe(1);
    });
  });

  it.concurrent('detects a SIGSTOPped game as hung and kills it', async () => {
    await withSidecar({ args: ['ok'] }, async (run) => {
      await readyAt(run);
      const gamePid = run.gamePid ?? 0;
      await run.until(
        () => run.gameEvents('request').some((e) => e.method === 'status'),
        3_000,
        'a first status probe',
      );
      const stoppedAt = Date.now();
      process.kill(gamePid, 'SIGSTOP');
      const report = await run.exitReport();
      const detected = (run.received.find((r) => r.message.type === 'exited')?.receivedAt ?? 0) - stoppedAt;
      process.stdout.write(
        `SIGSTOPped game: killed and reported ${detected} ms after SIGSTOP (bound 1500 ms + a probe)\n`,
      );
      expect(report).toMatchObject({ reason: 'hung', signal: 'SIGKILL' });
      expect(processTreeAlive(gamePid)).toBe(false);
      expect(detected).toBeLessThan(3_000);
    });
  });

  it.concurrent('kills a game that answers status with anything but {"status":"ok"}', async () => {
    await withSidecar({ args: ['wrong-status'] }, async (run) => {
      expect(await run.exitReport()).toMatchObject({ reason: 'hung', signal: 'SIGKILL' });
    });
  });

  it.concurrent(
    'never kills a game that answers status {"status":"OK"}, as every other result is spelled',
    async () => {
      await withSidecar({ args: ['upper-status'] }, async (run) => {
        await readyAt(run);
        await run.until(
          () => run.gameEvents('request').filter((e) => e.method === 'status').length >= 3,
          4_000,
          'three status probes',
        );
        // The third probe's answer has been judged by the time a fourth could start.
        await sleep(600);
        expect(processTreeAlive(run.gamePid ?? 0)).toBe(true);
        expect(run.messages('exited')).toEqual([]);
      });
    },
  );

  it.concurrent('never kills a slow game that answers within the timeout, over many intervals', async () => {
    // Each answer takes 700 ms of the 1000 ms allowed.
    await withSidecar({ args: ['slow-status', '--delay-ms=700'] }, async (run) => {
      await readyAt(run);
      await sleep(4_000);
      const probes = run.gameEvents('request').filter((e) => e.method === 'status');
      process.stdout.write(`slow game: ${probes.length} status probes answered in 700 ms each over 4 s, still alive\n`);
      expect(probes.length).toBeGreaterThanOrEqual(4);
      expect(processTreeAlive(run.gamePid ?? 0)).toBe(true);
      expect(run.messages('exited')).toEqual([]);
      // Probes never overlap: each starts after the previous answer.
      const gaps = probes.slice(1).map((p, i) => p.at - (probes[i]?.at ?? 0));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(650);
    });
  });
});
