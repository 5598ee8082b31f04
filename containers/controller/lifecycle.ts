import type { FailureReason } from '../../core/protocol/controller-messages';
import type { SelfBoundReason } from './bounds';
import type { GameExit } from './supervisor';

/**
 * Why the controller ends: a failure reason of the protocol (reported to the platform as
 * `exited`), `stopped` (SIGTERM/SIGINT on the sidecar), a bound the sidecar enforces itself
 * (containers/controller/bounds.ts) or `fatal` (a bug in the sidecar).
 */
export type EndReason =
  Exclude<FailureReason, 'heartbeat-lost' | 'platform-error'> | 'stopped' | SelfBoundReason | 'fatal';

/** How to stop the game for each end. */
type GameStop =
  /** It has already ended. */
  | 'none'
  /** SIGTERM now, SIGKILL after KILL_GRACE_S. */
  | 'terminate'
  /**
   * Send the `shutdown` notice; SIGTERM after `noticeWindowMs` if the game has not exited by
   * itself; SIGKILL at KILL_GRACE_S after the notice.
   */
  | 'notice-then-terminate'
  /** It was told to exit (error result to `inited`): KILL_GRACE_S to do so, then SIGKILL. */
  | 'await-exit'
  /** SIGKILL now: it stopped answering (also when SIGSTOPped), or the sidecar itself broke. */
  | 'kill';

export interface EndPlan {
  readonly stopGame: GameStop;
  /** The `exited` reason the platform gets. */
  readonly report: FailureReason;
  /** The sidecar's own exit code: 0 only for an orderly end. */
  readonly exitCode: 0 | 1;
}

const plans: Readonly<Record<EndReason, EndPlan>> = {
  'spawn-timeout': { stopGame: 'terminate', report: 'spawn-timeout', exitCode: 1 },
  'inited-refused': { stopGame: 'await-exit', report: 'inited-refused', exitCode: 1 },
  hung: { stopGame: 'kill', report: 'hung', exitCode: 1 },
  crashed: { stopGame: 'none', report: 'crashed', exitCode: 1 },
  exited: { stopGame: 'none', report: 'exited', exitCode: 0 },
  // Stopped on purpose by whoever runs the sidecar: an orderly end of the room.
  stopped: { stopGame: 'notice-then-terminate', report: 'exited', exitCode: 0 },
  // The sidecar's own cost bounds: the room closes as when the sweeper closes it.
  lifetime: { stopGame: 'notice-then-terminate', report: 'exited', exitCode: 0 },
  empty: { stopGame: 'notice-then-terminate', report: 'exited', exitCode: 0 },
  // Nothing is wrong with the game, but the platform lost sight of the room: not an orderly end.
  unwatched: { stopGame: 'notice-then-terminate', report: 'exited', exitCode: 1 },
  fatal: { stopGame: 'kill', report: 'crashed', exitCode: 1 },
};

/**
 * How long a game has to act on the `shutdown` notice before SIGTERM: half the grace, at most
 * a second. A game without a SIGTERM handler dies on the signal, so without this window the
 * notice would never be read.
 */
export function noticeWindowMs(graceMs: number): number {
  return Math.min(1_000, Math.floor(graceMs / 2));
}

/**
 * The `graceS` of the `shutdown` notice, in ms. A game the sidecar cannot signal
 * (GAME_LAUNCH=external: ECS signals it once the sidecar has exited) has the whole grace.
 */
export function noticeGraceMs(graceMs: number, canSignal: boolean): number {
  return canSignal ? noticeWindowMs(graceMs) : graceMs;
}

export function endPlan(reason: EndReason): EndPlan {
  return plans[reason];
}

/** A game that ends by itself: code 0 is a clean exit; any other code, a signal or a failed start is a crash. */
export function gameExitReason(exit: GameExit): 'exited' | 'crashed' {
  return exit.code === 0 && exit.startError === undefined ? 'exited' : 'crashed';
}
