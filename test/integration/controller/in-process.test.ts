import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { startController } from '../../../containers/controller/controller';
import { sidecarEnvironmentSchema } from '../../../core/gameservers/sidecar-environment';
import { processTreeAlive } from '../../helpers/processes';
import { closeHarness, expectNoLeftovers, listQueues, PlatformDouble, rememberPid, sqsClient } from './harness';

/**
 * `startController` in this process, for the paths a signal cannot reach from outside: a
 * bug in the sidecar (main.ts turns uncaught exceptions into `fail`) and an orderly stop.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

async function withController(
  args: string[],
  scenario: (platform: PlatformDouble, controller: Awaited<ReturnType<typeof startController>>) => Promise<void>,
) {
  const platform = await PlatformDouble.create();
  try {
    const env = sidecarEnvironmentSchema.parse(platform.sidecarEnvironment({ args }));
    const controller = await startController(env, {
      hostEnvironment: process.env,
      sqs: sqsClient(),
      keys: platform.keys,
    });
    rememberPid(controller.gamePid);
    try {
      await scenario(platform, controller);
    } finally {
      controller.killGameNow();
      await controller.stopped;
    }
  } finally {
    await platform.dispose();
  }
}

describe('startController (in process)', () => {
  it('fail(): kills the game at once, reports crashed, deletes the reply queue and the socket directory', async () => {
    await withController(['ok', '--ignore-sigterm'], async (platform, controller) => {
      await platform.until(() => platform.gameEvents('answer')[0], 5_000, 'the inited answer');
      const gamePid = controller.gamePid ?? 0;
      expect(processTreeAlive(gamePid)).toBe(true);

      const outcome = await controller.fail(new Error('a bug in the sidecar'));
      expect(outcome).toEqual({ reason: 'fatal', exitCode: 1, game: { code: null, signal: 'SIGKILL' } });
      expect(processTreeAlive(gamePid)).toBe(false);
      expect(await platform.exitReport()).toMatchObject({ reason: 'crashed', signal: 'SIGKILL' });
      expect(await listQueues(platform.replyQueueName)).toEqual([]);
      expect(existsSync(dirname(controller.endpoint.slice('ipc://'.length)))).toBe(false);
      await expect(controller.stopped).resolves.toBe(outcome);
    });
  });

  it('stop(): the notice carries the reason; a game that obeys exits 0 and the end is orderly', async () => {
    await withController(['ok'], async (platform, controller) => {
      await platform.until(() => platform.gameEvents('answer')[0], 5_000, 'the inited answer');
      const outcome = await controller.stop('room-closed');
      expect(outcome).toEqual({ reason: 'stopped', exitCode: 0, game: { code: 0, signal: null } });
      expect(platform.gameEvents('request').find((e) => e.method === 'shutdown')?.params).toEqual({
        reason: 'room-closed',
        graceS: 0.5,
      });
      // A second stop joins the first.
      await expect(controller.stop()).resolves.toBe(outcome);
      expect(platform.messages('exited')).toHaveLength(1);
    });
  });
});
