import { readdirSync, readFileSync } from 'node:fs';

/** A process as /proc shows it; `startTime` tells it apart from a later process given the same pid. */
export interface ProcessRecord {
  readonly pid: number;
  readonly ppid: number;
  readonly startTime: string;
  readonly command: string;
}

function read(pid: number): ProcessRecord | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), startTime: fields[19] ?? '', command };
  } catch {
    return undefined;
  }
}

function allProcesses(): ProcessRecord[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => read(Number(entry)) ?? []);
}

/** `root` and every live process below it. */
export function processTree(root: number): ProcessRecord[] {
  const all = allProcesses();
  const tree: ProcessRecord[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    const record = all.find((p) => p.pid === pid);
    if (!record) continue;
    tree.push(record);
    for (const child of all) if (child.ppid === pid) queue.push(child.pid);
  }
  return tree;
}

/** Those of `records` still running (same pid and start time, not a zombie). */
export function stillRunning(records: readonly ProcessRecord[]): ProcessRecord[] {
  return records.filter((r) => read(r.pid)?.startTime === r.startTime);
}

/** Pids of processes whose environment holds `marker`. */
export function processesWithMarker(marker: string): number[] {
  return allProcesses()
    .map((p) => p.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker);
      } catch {
        return false;
      }
    });
}
