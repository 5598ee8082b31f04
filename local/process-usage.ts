import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (clock ticks) and resident memory (bytes) of whole process groups. */
export interface GroupUsage {
  readonly cpuTicks: number;
  readonly rssBytes: number;
}

/** Linux's USER_HZ and page size: what /proc/<pid>/stat counts in. */
export const clockTicksPerS = 100;
const pageBytes = 4096;

/**
 * The usage of each process group in `groups`, read from /proc/<pid>/stat of every process
 * (fields 5 pgrp, 14 utime, 15 stime, 24 rss, counted after the command name). A sidecar
 * leads its own group, and its game runs in it: a group is one local game server. Empty
 * where /proc is missing (not Linux).
 */
export function processGroupUsage(groups: ReadonlySet<number>): Map<number, GroupUsage> {
  const usage = new Map<number, GroupUsage>();
  if (groups.size === 0) return usage;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return usage;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // Gone between the listing and the read.
    }
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const group = Number(fields[2]);
    if (!groups.has(group)) continue;
    const before = usage.get(group) ?? { cpuTicks: 0, rssBytes: 0 };
    usage.set(group, {
      cpuTicks: before.cpuTicks + Number(fields[11]) + Number(fields[12]),
      rssBytes: before.rssBytes + Number(fields[21]) * pageBytes,
    });
  }
  return usage;
}
