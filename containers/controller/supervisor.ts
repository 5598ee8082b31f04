import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { GameLaunch } from './game-environment';
import { redactSecrets } from './log';

export interface GameExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (`ENOENT`, `EACCES`). */
  readonly startError?: string;
}

/** The game process as the controller sees it, whoever started it. */
export interface SupervisedGame {
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Whether the sidecar can signal the game (not when ECS runs it in its own container). */
  readonly canSignal: boolean;
  /** Settles once, when the game has ended (or, for an external game, been let go). */
  readonly exited: Promise<GameExit>;
  /** SIGTERM after `sigtermAfterMs` (default now), SIGKILL after `graceMs`, unless it has exited by then. */
  terminate(graceMs: number, sigtermAfterMs?: number): Promise<GameExit>;
  /** Lets the game exit on its own for `graceMs`, then SIGKILL. */
  awaitExit(graceMs: number): Promise<GameExit>;
  /** SIGKILL now. Synchronous, so it is safe in a process 'exit' handler; works on a stopped process. */
  kill(): void;
}

export interface GameProcessOptions {
  readonly log: Logger;
  /** Strings never to let through from the game's output into the log (its own token). */
  readonly secrets: readonly string[];
  /** Strings shaped like a secret that are none, kept as the game wrote them (its room id). */
  readonly kept?: readonly string[];
  /** Command prefix that makes the kernel kill the game when the sidecar dies; see `parentDeathGuard`. */
  readonly guard?: readonly string[];
}

const setpriv = '/usr/bin/setpriv';

/**
 * `setpriv --pdeathsig KILL --` (util-linux, in every Debian image): the kernel SIGKILLs the
 * game the moment the sidecar dies, even by SIGKILL or the OOM killer, where no handler of
 * ours can run. setpriv execs the game, so the pid, argv and signals stay the game's own.
 * Absent elsewhere (macOS): then the process group is the only guard.
 */
export function parentDeathGuard(): readonly string[] | undefined {
  return process.platform === 'linux' && existsSync(setpriv) ? [setpriv, '--pdeathsig', 'KILL', '--'] : undefined;
}

/**
 * Starts the game as a child in the sidecar's process group (not detached): whatever kills
 * the group, as the local fleet does when a sidecar dies, kills the game too.
 */
export function startGameProcess(launch: GameLaunch, options: GameProcessOptions): SupervisedGame {
  const [command, ...args] = [...(options.guard ?? []), launch.command, ...launch.args] as [string, ...string[]];
  const child = spawn(command, args, {
    env: { ...launch.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let running = child.pid !== undefined;
  const exited = new Promise<GameExit>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failed start ends here without an 'exit' ('error' on kill cannot happen: we check `running`).
      if (child.pid === undefined) {
        running = false;
        resolve({ code: null, signal: null, startError: error.code ?? error.message });
      } else {
        options.log.error('game process error', { error });
      }
    });
  });
  forwardOutput(child.stdout, 'stdout', options);
  forwardOutput(child.stderr, 'stderr', options);

  const kill = () => {
    if (running) child.kill('SIGKILL');
  };
  const killAfter = async (graceMs: number): Promise<GameExit> => {
    const timer = setTimeout(kill, graceMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  };
  return {
    get pid() {
      return child.pid;
    },
    get running() {
      return running;
    },
    canSignal: true,
    exited,
    terminate: async (graceMs, sigtermAfterMs = 0) => {
      const sigterm = () => {
        if (running) child.kill('SIGTERM');
      };
      let timer: NodeJS.Timeout | undefined;
      if (sigtermAfterMs > 0) timer = setTimeout(sigterm, sigtermAfterMs);
      else sigterm();
      const exit = await killAfter(graceMs);
      clearTimeout(timer);
      return exit;
    },
    awaitExit: killAfter,
    kill,
  };
}

/**
 * GAME_LAUNCH=external: ECS starts the game in its own container of the task; the sidecar
 * cannot signal it. Ending the sidecar ends the task (both containers are essential), and ECS
 * then signals the game: that is how a hung or refused game is stopped there. `awaitExit`
 * gives a game that was told to exit (`shutdown`, a refused `inited`) the grace to close its
 * connection (`peerGone`) before the sidecar lets it go; `terminate` and `kill` let go at once.
 */
export function externalGame(peerGone: (timeoutMs: number) => Promise<boolean>): SupervisedGame {
  let release: (exit: GameExit) => void = () => undefined;
  const exited = new Promise<GameExit>((resolve) => {
    release = resolve;
  });
  const letGo = async () => {
    release({ code: null, signal: null });
    return exited;
  };
  return {
    pid: undefined,
    running: false,
    canSignal: false,
    exited,
    terminate: letGo,
    awaitExit: async (graceMs) => {
      await peerGone(graceMs);
      return letGo();
    },
    kill: () => void letGo(),
  };
}

function forwardOutput(stream: Readable | null, name: 'stdout' | 'stderr', options: GameProcessOptions): void {
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) =>
    options.log.info('game output', { stream: name, line: redactSecrets(line, options.secrets, options.kept) }),
  );
}
