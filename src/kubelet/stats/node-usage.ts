import { readFile } from 'node:fs/promises';

const CLOCK_TICKS_PER_SECOND = 100;

export interface NodeUsage {
  /** CPU time spent outside idle and iowait over all cores since boot, in nanoseconds. */
  usageCoreNanoSeconds: number;
  /** When the machine booted (the node's stats start time). */
  bootTime: Date;
  memory: { workingSetBytes: number; availableBytes: number; usageBytes: number };
}

/** The aggregate `cpu` line of /proc/stat in nanoseconds of busy time, and `btime`. */
export function parseProcStatTotals(text: string): { busyNanoSeconds: number; bootTime: Date } {
  const cpu = /^cpu\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/).map(Number) ?? [];
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  const busyTicks = user + nice + system + irq + softirq + steal;
  const btime = Number(/^btime\s+(\d+)/m.exec(text)?.[1] ?? 0);
  return { busyNanoSeconds: (busyTicks * 1e9) / CLOCK_TICKS_PER_SECOND, bootTime: new Date(btime * 1000) };
}

/** /proc/meminfo: usage is what is not free; the working set leaves out inactive file pages too, as the root cgroup's figure does. */
export function parseMeminfo(text: string): NodeUsage['memory'] {
  const kb = (name: string) => Number(new RegExp(`^${name.replace(/[()]/g, '\\$&')}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
  const usageBytes = Math.max(0, kb('MemTotal') - kb('MemFree'));
  return { usageBytes, workingSetBytes: Math.max(0, usageBytes - kb('Inactive(file)')), availableBytes: kb('MemAvailable') };
}

/** The node's own CPU and memory, from /proc/stat and /proc/meminfo. */
export async function readNodeUsage(): Promise<NodeUsage> {
  const [stat, meminfo] = await Promise.all([readFile('/proc/stat', 'utf8'), readFile('/proc/meminfo', 'utf8')]);
  const { busyNanoSeconds, bootTime } = parseProcStatTotals(stat);
  return { usageCoreNanoSeconds: busyNanoSeconds, bootTime, memory: parseMeminfo(meminfo) };
}

/** The node's process limit (the lower of pid_max and threads-max) and how many tasks run now (/proc/loadavg), as upstream's rlimit stats. */
export async function readRlimit(): Promise<{ maxpid: number; curproc: number }> {
  const [pidMax, threadsMax, loadavg] = await Promise.all([
    readFile('/proc/sys/kernel/pid_max', 'utf8'),
    readFile('/proc/sys/kernel/threads-max', 'utf8').catch(() => ''),
    readFile('/proc/loadavg', 'utf8'),
  ]);
  const limits = [Number(pidMax.trim()), Number(threadsMax.trim())].filter((n) => Number.isFinite(n) && n > 0);
  return { maxpid: Math.min(...limits), curproc: Number(/^\S+ \S+ \S+ \d+\/(\d+)/.exec(loadavg)?.[1] ?? 0) };
}
