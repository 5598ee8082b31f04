import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { GameConfigurationBinaryError } from './errors';
import type { GameServerConfigurationBody } from './schema';

/** What is at a path the local fleet would start. */
export type LocalFileState = 'executable' | 'missing' | 'not-a-file' | 'not-executable';

/**
 * Why the local fleet could not start `binary`, or undefined when it can. The sidecar execs
 * it as given (through `setpriv`, or node's spawn), so it is judged the same way:
 *
 * - an absolute path: that file must exist, be a file, and be executable by this user;
 * - a bare command name (`python3`): some directory of PATH must hold an executable of that
 *   name. PATH is the game's: the configuration's own `env.PATH` when it sets one, else the
 *   platform's (docs/game-server-protocol.md, "Start");
 * - anything else (`./server`, `bin/server`) is refused: exec would resolve it against the
 *   platform process's working directory, which depends on where someone ran `npm start`.
 *   The local configuration file resolves its relative paths against its own directory
 *   before they get here (local/config-file.ts).
 *
 * On ECS the binary is a path inside the image, which the platform cannot see at PUT: this
 * rule is the local fleet's only.
 */
export function localBinaryProblem(
  binary: string | undefined,
  path: string | undefined,
  stateOf: (file: string) => LocalFileState,
): string | undefined {
  if (binary === undefined) return 'it has no binary, and the local fleet runs binaries, not images';
  if (isAbsolute(binary)) {
    switch (stateOf(binary)) {
      case 'executable':
        return undefined;
      case 'missing':
        return `${binary} does not exist on this machine`;
      case 'not-a-file':
        return `${binary} is not a file`;
      case 'not-executable':
        return `${binary} is not executable by the platform's user (chmod +x)`;
    }
  }
  if (binary.includes('/'))
    return (
      `${binary} is a relative path, which would be resolved against the platform's working directory; ` +
      'give an absolute path or a command name on PATH'
    );
  // An empty PATH entry means the working directory to exec: the trap above, so never looked in.
  const directories = (path ?? '').split(delimiter).filter((d) => isAbsolute(d));
  if (directories.some((directory) => stateOf(join(directory, binary)) === 'executable')) return undefined;
  return `no executable named ${binary} is in any directory of PATH`;
}

/** `stateOf` on this machine's file system, as the platform's user. */
function localFileState(file: string): LocalFileState {
  try {
    if (!statSync(file).isFile()) return 'not-a-file';
  } catch {
    return 'missing';
  }
  try {
    accessSync(file, constants.X_OK);
    return 'executable';
  } catch {
    return 'not-executable';
  }
}

/**
 * Refuses, with 400 naming `body.binary`, a configuration the local fleet could not start,
 * so that the PUT fails instead of every room of it as `crashed`. `hostPath` is the PATH the
 * platform hands its sidecars.
 */
export function assertLocalBinaryStarts(
  configuration: Pick<GameServerConfigurationBody, 'binary' | 'env'>,
  hostPath: string | undefined,
  stateOf: (file: string) => LocalFileState = localFileState,
): void {
  const problem = localBinaryProblem(configuration.binary, configuration.env.PATH ?? hostPath, stateOf);
  if (problem !== undefined) throw new GameConfigurationBinaryError(configuration.binary, problem);
}
