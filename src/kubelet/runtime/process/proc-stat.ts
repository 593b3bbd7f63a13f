import { readFileSync } from 'node:fs';

/**
 * A process's start time in clock ticks since boot (field 22 of
 * /proc/<pid>/stat). A pid plus its start time names one process for good:
 * after a restart this is how a recorded pid is told apart from a reused one.
 */
export function processStartTime(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses; fields resume after the last ')'
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); a zombie has exited and only waits to be reaped
  if (fields[0] === 'Z') return undefined;
  const start = Number(fields[19]);
  return Number.isFinite(start) ? start : undefined;
}

/** True while the process recorded as (pid, startTime) is still the one running under that pid. */
export function sameProcessAlive(pid: number | undefined, startTime: number | undefined): boolean {
  if (!pid || startTime === undefined) return false;
  return processStartTime(pid) === startTime;
}
