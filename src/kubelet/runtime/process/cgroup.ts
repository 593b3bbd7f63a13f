import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup';

/**
 * One container's cgroup, under `skiff/<pod uid>/<container id>` in whichever
 * hierarchy the host has (v1: the memory and cpu controllers; v2: unified).
 * Every operation is best-effort: without a writable cgroupfs the container
 * simply runs unconstrained.
 */
export class ContainerCgroup {
  private constructor(
    readonly version: 1 | 2,
    /** Directories holding the container's processes (one per v1 controller, one for v2). */
    readonly dirs: string[],
  ) {}

  static detect(): 1 | 2 | undefined {
    if (existsSync(join(ROOT, 'cgroup.controllers'))) return 2;
    if (existsSync(join(ROOT, 'memory', 'memory.limit_in_bytes'))) return 1;
    return undefined;
  }

  static async create(podUid: string, containerId: string, limits: { memory?: number; cpuMillis?: number }): Promise<ContainerCgroup | undefined> {
    const version = ContainerCgroup.detect();
    if (!version) return undefined;
    try {
      if (version === 1) {
        const mem = join(ROOT, 'memory', 'skiff', podUid, containerId);
        const cpu = join(ROOT, 'cpu', 'skiff', podUid, containerId);
        await mkdir(mem, { recursive: true });
        await mkdir(cpu, { recursive: true });
        if (limits.memory) await writeFile(join(mem, 'memory.limit_in_bytes'), String(limits.memory));
        if (limits.cpuMillis) {
          await writeFile(join(cpu, 'cpu.cfs_period_us'), '100000');
          await writeFile(join(cpu, 'cpu.cfs_quota_us'), String(Math.max(1000, limits.cpuMillis * 100)));
        }
        return new ContainerCgroup(1, [mem, cpu]);
      }
      const base = join(ROOT, 'skiff');
      await mkdir(join(base, podUid, containerId), { recursive: true });
      // v2 only hands controllers down to children that their parents enable
      for (const dir of [ROOT, base, join(base, podUid)]) await writeFile(join(dir, 'cgroup.subtree_control'), '+memory +cpu').catch(() => undefined);
      const dir = join(base, podUid, containerId);
      if (limits.memory) await writeFile(join(dir, 'memory.max'), String(limits.memory));
      if (limits.cpuMillis) await writeFile(join(dir, 'cpu.max'), `${Math.max(1000, limits.cpuMillis * 100)} 100000`);
      return new ContainerCgroup(2, [dir]);
    } catch {
      return undefined;
    }
  }

  /** The cgroup a container got before a restart of the kubelet, if it is still there. */
  static open(podUid: string, containerId: string): ContainerCgroup | undefined {
    const version = ContainerCgroup.detect();
    const dirs = version === 1
      ? [join(ROOT, 'memory', 'skiff', podUid, containerId), join(ROOT, 'cpu', 'skiff', podUid, containerId)]
      : version === 2 ? [join(ROOT, 'skiff', podUid, containerId)] : [];
    return version && dirs.every((d) => existsSync(d)) ? new ContainerCgroup(version, dirs) : undefined;
  }

  /** Files a process writes its pid to, to join this cgroup. */
  procsFiles(): string[] {
    return this.dirs.map((d) => join(d, 'cgroup.procs'));
  }

  /** True if the kernel's OOM killer killed a process of this cgroup. */
  async oomKilled(): Promise<boolean> {
    const file = this.version === 1 ? join(this.dirs[0], 'memory.oom_control') : join(this.dirs[0], 'memory.events');
    const text = await readFile(file, 'utf8').catch(() => '');
    const m = /^oom_kill (\d+)/m.exec(text);
    return m !== null && Number(m[1]) > 0;
  }

  async pids(): Promise<number[]> {
    const text = await readFile(this.procsFiles()[0], 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map(Number);
  }

  async memoryUsage(): Promise<number | undefined> {
    const file = this.version === 1 ? join(this.dirs[0], 'memory.usage_in_bytes') : join(this.dirs[0], 'memory.current');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    return text === undefined ? undefined : Number(text.trim());
  }

  /** Usage minus inactive file pages (what cAdvisor calls the working set), or undefined without a readable cgroup. */
  async memoryWorkingSet(): Promise<number | undefined> {
    const usage = await this.memoryUsage();
    if (usage === undefined || !Number.isFinite(usage)) return undefined;
    const stat = await readFile(join(this.dirs[0], 'memory.stat'), 'utf8').catch(() => '');
    const m = (this.version === 1 ? /^total_inactive_file (\d+)/m : /^inactive_file (\d+)/m).exec(stat);
    const inactive = m ? Number(m[1]) : 0;
    return Math.max(0, usage - inactive);
  }

  /** Removes the (empty) cgroup directories and, when empty, their pod parents. */
  async remove(): Promise<void> {
    for (const d of this.dirs) {
      await rmdir(d).catch(() => undefined);
      await rmdir(join(d, '..')).catch(() => undefined);
    }
  }
}
