import { readdirSync, readFileSync } from 'node:fs';

export interface HostProcess {
  pid: number;
  cmdline: string;
  /** Environment variables, or empty for a zombie or a process that just went away. */
  env: Map<string, string>;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}

/**
 * The host's processes whose command line contains `marker` or whose
 * environment has `envKey` (read from /proc; root sees every process).
 * Zombies have no environment and are left out: they no longer run.
 */
export function findProcesses(match: { marker?: string; envKey?: string }): HostProcess[] {
  const out: HostProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const environ = read(`/proc/${pid}/environ`);
    if (!environ) continue;
    const cmdline = read(`/proc/${pid}/cmdline`).replaceAll('\0', ' ').trim();
    const hitEnv = match.envKey !== undefined && environ.includes(`${match.envKey}=`);
    const hitCmd = match.marker !== undefined && cmdline.includes(match.marker);
    if (!hitEnv && !hitCmd) continue;
    const env = new Map<string, string>();
    for (const kv of environ.split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0) env.set(kv.slice(0, i), kv.slice(i + 1));
    }
    out.push({ pid, cmdline, env });
  }
  return out;
}
