import { readdirSync, readFileSync } from 'node:fs';
import { childLogger } from '../core/infra/logger';

/**
 * Every sidecar the local fleet starts carries this variable, naming the platform process
 * that owns it (`<pid>:<start time>`, so a reused pid is not mistaken for its owner). A
 * sidecar whose owner is gone belongs to an earlier run that died without stopping it.
 */
export const fleetOwnerVariable = 'ROOMKEEPER_FLEET_OWNER';

const log = childLogger('local-fleet');

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), if it runs. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** This process, as sidecars name their owner. */
export function currentFleetOwner(): string {
  return `${process.pid}:${startTime(process.pid) ?? 'unknown'}`;
}

export function fleetOwnerAlive(owner: string): boolean {
  const [pid, started] = owner.split(':');
  const running = startTime(Number(pid));
  return running !== undefined && running === started;
}

/** Processes (by pid) whose environment names a fleet owner that no longer runs. */
function findLeftoverSidecars(): number[] {
  if (process.platform !== 'linux') return [];
  const prefix = `${fleetOwnerVariable}=`;
  const leftovers: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let owner: string | undefined;
    try {
      owner = readFileSync(`/proc/${entry}/environ`, 'latin1')
        .split('\0')
        .find((v) => v.startsWith(prefix))
        ?.slice(prefix.length);
    } catch {
      continue; // Exited while we looked, or not ours to read.
    }
    if (owner && !fleetOwnerAlive(owner) && startTime(Number(entry)) !== undefined) leftovers.push(Number(entry));
  }
  return leftovers;
}

/**
 * Ends the sidecars of earlier runs (and their games: each sidecar leads the process group
 * its game runs in). Their platform is gone, so nothing they do can reach anyone: no grace.
 */
export function stopLeftoverSidecars(): number[] {
  const stopped = findLeftoverSidecars();
  for (const pid of stopped) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Not a group leader, or already gone.
      }
    }
  }
  if (stopped.length > 0) log.warn('stopped game servers left by an earlier run', { pids: stopped });
  return stopped;
}
