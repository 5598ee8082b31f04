/**
 * The controller sidecar process: `node controller.js` with the environment of
 * core/gameservers/sidecar-environment.ts (the local fleet spawns it as a child process,
 * ECS runs it as the task's controller container).
 *
 * Exit codes: 0 orderly end (SIGTERM/SIGINT, or the game exited with 0), 1 the room failed
 * (spawn timeout, refused, hung, crashed) or the sidecar broke, 2 bad environment (a sealed
 * environment that does not open included).
 */
import type { SidecarEnvelopeError } from '../../core/gameservers/sidecar-envelope';
import { sidecarEnvironmentSchema } from '../../core/gameservers/sidecar-environment';
import { startController, type Controller } from './controller';
import { controllerLogger } from './log';
import { openedEnvironment } from './sealed-environment';
import { readSidecarKeys } from './sidecar-key';

/** After a fatal error, cleanup gets this long before the process exits anyway. */
const fatalCleanupMs = 5_000;

async function main(): Promise<void> {
  let source;
  try {
    source = openedEnvironment(process.env);
  } catch (error) {
    const { reason, message } = error as SidecarEnvelopeError;
    controllerLogger(process.env.ROOM_ID ?? 'unknown').error('cannot open the sealed sidecar environment', {
      reason,
      detail: message,
    });
    process.exit(2);
  }
  const parsed = sidecarEnvironmentSchema.safeParse(source);
  if (!parsed.success) {
    // Names only: values may be secrets (LOGIN_ACCESS_TOKEN).
    const variables = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
    controllerLogger(process.env.ROOM_ID ?? 'unknown').error('invalid sidecar environment', { variables });
    process.exit(2);
  }
  const env = parsed.data;
  const log = controllerLogger(env.ROOM_ID);
  // Before anything else, and before the game exists: stdin is drained and closed here.
  let keys;
  try {
    keys = await readSidecarKeys(env.ROOM_ID, env.SIDECAR_KEY, process.stdin);
  } catch {
    log.error('no valid sidecar key (SIDECAR_KEY or stdin); the platform would refuse every message');
    process.exit(2);
  }

  let controller: Controller | undefined;
  let stopRequested: string | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested) {
      // A second signal: whoever sent it will not wait for an orderly stop.
      log.warn('second stop signal; killing the game now', { signal });
      controller?.killGameNow();
      process.exit(1);
    }
    stopRequested = signal;
    log.info('stop requested', { signal });
    void controller?.stop(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const onFatal = (error: unknown) => {
    log.critical('uncaught error in the controller', { error });
    setTimeout(() => process.exit(1), fatalCleanupMs).unref();
    if (controller) void controller.fail(error).then(() => process.exit(1));
    else process.exit(1);
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  // Whatever path leads out of this process, the game does not outlive it.
  process.on('exit', () => controller?.killGameNow());

  try {
    controller = await startController(env, { hostEnvironment: process.env, keys, log });
  } catch {
    // Already logged and reported as `exited` by startController.
    process.exit(1);
  }
  if (stopRequested) void controller.stop(stopRequested);
  const outcome = await controller.stopped;
  process.exit(outcome.exitCode);
}

void main();
