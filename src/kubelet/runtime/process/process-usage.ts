import { readdir, readFile } from 'node:fs/promises';

/** Linux's USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream architecture). */
const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_SIZE = 4096;

/** The summed usage of one process group's live processes. */
export interface GroupUsage {
  /** utime + stime of each process plus the cutime + cstime of children it has reaped, in nanoseconds. */
  cpuNanoSeconds: number;
  /** Resident set size, in bytes. */
  rssBytes: number;
}

/** Fields of /proc/<pid>/stat after the command name: [0] is field 3 (state). */
export function parseProcStat(text: string): { pgrp: number; cpuTicks: number; rssPages: number } | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields.length < 22 || fields[0] === 'Z') return undefined;
  // field 5 pgrp, 14 utime, 15 stime, 16 cutime, 17 cstime, 24 rss
  const n = (field: number) => Number(fields[field - 3]);
  return { pgrp: n(5), cpuTicks: n(14) + n(15) + n(16) + n(17), rssPages: n(24) };
}

/**
 * Usage per process group, from one pass over /proc: each process-runtime
 * container leads its own group, so this is per-container accounting
 * without needing the cpuacct controller. Processes that leave their group
 * (a new session) are not counted.
 */
export async function usageByProcessGroup(groups: ReadonlySet<number>): Promise<Map<number, GroupUsage>> {
  const out = new Map<number, GroupUsage>();
  if (groups.size === 0) return out;
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return out;
  }
  await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map(async (pid) => {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    const stat = text === undefined ? undefined : parseProcStat(text);
    if (!stat || !groups.has(stat.pgrp)) return;
    const u = out.get(stat.pgrp) ?? { cpuNanoSeconds: 0, rssBytes: 0 };
    u.cpuNanoSeconds += (stat.cpuTicks * 1e9) / CLOCK_TICKS_PER_SECOND;
    u.rssBytes += stat.rssPages * PAGE_SIZE;
    out.set(stat.pgrp, u);
  }));
  return out;
}
