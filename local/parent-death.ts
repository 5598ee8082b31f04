import { parentDeathGuard } from '../containers/controller/supervisor';
import { childLogger } from '../core/infra/logger';

const log = childLogger('local-cloud');
let warned = false;

/**
 * The command line that starts `command` so the kernel SIGKILLs it the moment the platform
 * process dies, even by SIGKILL where no handler of ours runs: `setpriv --pdeathsig KILL`,
 * as the sidecar does for its game. setpriv execs the command, so the pid is the command's.
 * Without setpriv (not Linux, or util-linux missing) the command runs bare and a warning
 * says that a killed platform can leave it running.
 */
export function withParentDeathSignal(command: string, args: readonly string[]): [string, string[]] {
  const guard = parentDeathGuard();
  if (guard) {
    const [prefix, ...prefixArgs] = guard as [string, ...string[]];
    return [prefix, [...prefixArgs, command, ...args]];
  }
  if (!warned) {
    warned = true;
    log.warn('setpriv is not available: processes of the local cloud outlive it if it is killed with SIGKILL');
  }
  return [command, [...args]];
}
