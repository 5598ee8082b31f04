import { readFileSync } from 'node:fs';

/** Whether a process (not a zombie) with this id still runs. */
export function processTreeAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}
