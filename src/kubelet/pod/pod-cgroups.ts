import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';
export type CgroupDriver = 'cgroupfs' | 'systemd';

export interface PodCgroupsOptions {
  driver: CgroupDriver;
  version: 1 | 2;
  /** `--pod-max-pids`: the most processes a pod may hold (-1 or absent: unlimited). */
  podMaxPids?: number;
  /** Where the cgroup file systems are mounted (tests point it elsewhere). */
  mountPoint?: string;
}

/** The pod's QoS class: as the API server set it, else (a static pod from a file) computed as upstream's GetPodQOS does. */
export function podQos(pod: Pod): QosClass {
  const set = pod.status?.qosClass as QosClass | undefined;
  if (set) return set;
  let any = false;
  let guaranteed = true;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) any = true;
      if (lim[r] === undefined || (req[r] !== undefined && String(req[r]) !== String(lim[r]))) guaranteed = false;
    }
  }
  return !any ? 'BestEffort' : guaranteed ? 'Guaranteed' : 'Burstable';
}

/** upstream's cgroup name of a pod: `kubepods/pod<uid>` for Guaranteed, else under its QoS class's cgroup. */
export function podCgroupName(pod: Pod): string[] {
  const qos = podQos(pod);
  const leaf = `pod${pod.metadata?.uid ?? ''}`;
  return qos === 'Guaranteed' ? ['kubepods', leaf] : ['kubepods', qos.toLowerCase(), leaf];
}

/** The name as the runtime takes it: a cgroupfs path, or a systemd slice (dashes in names escaped as `_`). */
export function cgroupParent(name: string[], driver: CgroupDriver): string {
  if (driver === 'cgroupfs') return `/${name.join('/')}`;
  return `${name.map((n) => n.replaceAll('-', '_')).join('-')}.slice`;
}

/** Where a cgroup lives under a hierarchy's mount: systemd nests each slice in its parent's. */
function relativePath(name: string[], driver: CgroupDriver): string {
  if (driver === 'cgroupfs') return join(...name);
  const escaped = name.map((n) => n.replaceAll('-', '_'));
  return join(...escaped.map((_, i) => `${escaped.slice(0, i + 1).join('-')}.slice`));
}

/** upstream's MilliCPUToShares: 1024 per CPU, at least 2. */
const shares = (milli: number): number => Math.max(2, Math.floor((milli * 1024) / 1000));

/** upstream's ResourceConfigForPod CPU weight: the pod's CPU requests (a container without one counts its limit; init containers by their largest). */
export function podCpuShares(pod: Pod): number {
  const milli = (c: Container): number => {
    const v = c.resources?.requests?.cpu ?? c.resources?.limits?.cpu;
    return v === undefined ? 0 : Quantity.parse(String(v)).milliValue();
  };
  const sum = (pod.spec?.containers ?? []).reduce((t, c) => t + milli(c), 0);
  return shares(Math.max(sum, ...(pod.spec?.initContainers ?? []).map(milli)));
}

/** The CFS period the kubelet uses (upstream's default `--cpu-cfs-quota-period`, 100 ms). */
export const CFS_PERIOD_US = 100_000;

/** What upstream's ResourceConfigForPod puts on a pod's cgroup: CPU weight always, caps only where every container declares them. */
export interface PodResourceConfig {
  cpuShares: number;
  /** CFS quota in µs per CFS_PERIOD_US; absent: no CPU cap. */
  cpuQuotaUs?: number;
  /** Bytes; absent: no memory cap. */
  memoryLimitBytes?: number;
}

/**
 * The pod's effective requests or limits of one resource, as upstream's
 * PodRequestsAndLimits: the sum over its containers, or the largest init
 * container's if that is more (init containers run one at a time, before
 * the others).
 */
function podTotal(pod: Pod, kind: 'requests' | 'limits', resource: 'cpu' | 'memory', value: (q: Quantity) => number): number {
  const of = (c: Container): number => {
    const v = c.resources?.[kind]?.[resource];
    return v === undefined ? 0 : value(Quantity.parse(String(v)));
  };
  const sum = (pod.spec?.containers ?? []).reduce((t, c) => t + of(c), 0);
  return Math.max(sum, ...(pod.spec?.initContainers ?? []).map(of));
}

/**
 * upstream's ResourceConfigForPod: the CPU weight of the pod's requests; for
 * a Guaranteed pod a CPU quota and memory limit of the sum of its
 * containers' limits; for a Burstable pod each of those only when every
 * (non-init) container declares that limit; a BestEffort pod only the
 * minimum weight.
 */
export function podResourceConfig(pod: Pod): PodResourceConfig {
  const qos = podQos(pod);
  if (qos === 'BestEffort') return { cpuShares: 2 };
  const out: PodResourceConfig = { cpuShares: podCpuShares(pod) };
  const containers = pod.spec?.containers ?? [];
  const declared = (r: 'cpu' | 'memory') => containers.every((c) => {
    const v = c.resources?.limits?.[r];
    return v !== undefined && Quantity.parse(String(v)).milliValue() > 0;
  });
  if (qos === 'Guaranteed' || declared('cpu')) {
    const milli = podTotal(pod, 'limits', 'cpu', (q) => q.milliValue());
    // upstream's MilliCPUToQuota: no quota for 0, at least 1 ms per period
    if (milli > 0) out.cpuQuotaUs = Math.max(1000, Math.floor((milli * CFS_PERIOD_US) / 1000));
  }
  if (qos === 'Guaranteed' || declared('memory')) {
    const bytes = podTotal(pod, 'limits', 'memory', (q) => q.value());
    if (bytes > 0) out.memoryLimitBytes = bytes;
  }
  return out;
}

/**
 * upstream's pod-level cgroups (cgroupsPerQOS): every pod gets a cgroup
 * under `kubepods` (Guaranteed), `kubepods/burstable` or
 * `kubepods/besteffort`, handed to the runtime as the sandbox's
 * cgroup_parent, so the runtime puts the pod's containers in it. The kubelet
 * writes there the pod's `--pod-max-pids`, the CPU weight of its requests
 * and, as upstream's QoS cgroup manager, its caps (podResourceConfig): the
 * CPU quota and memory limit summed over its containers. The containers keep
 * their own caps too; when the pod's memory cap is what the kernel hits, the
 * OOM notification still reaches the container's cgroup below it (v1 notifies
 * the whole subtree), so the runtime reports the kill as OOMKilled.
 */
export class PodCgroups {
  private readonly root: string;

  constructor(private readonly opts: PodCgroupsOptions) {
    this.root = opts.mountPoint ?? '/sys/fs/cgroup';
  }

  parentFor(pod: Pod): string {
    return cgroupParent(podCgroupName(pod), this.opts.driver);
  }

  /** Creates the pod's cgroup with its limits before the sandbox starts (the runtime creates it itself for systemd; then it is filled in after). */
  ensure(pod: Pod): void {
    const rel = relativePath(podCgroupName(pod), this.opts.driver);
    const { cpuShares, cpuQuotaUs, memoryLimitBytes } = podResourceConfig(pod);
    const pids = this.opts.podMaxPids !== undefined && this.opts.podMaxPids > 0 ? this.opts.podMaxPids : undefined;
    if (this.opts.version === 1) {
      this.write(join(this.root, 'pids', rel), 'pids.max', pids === undefined ? 'max' : String(pids));
      const cpu = join(this.root, 'cpu', rel);
      this.write(cpu, 'cpu.shares', String(cpuShares));
      this.write(cpu, 'cpu.cfs_period_us', String(CFS_PERIOD_US));
      this.write(cpu, 'cpu.cfs_quota_us', String(cpuQuotaUs ?? -1));
      this.write(join(this.root, 'memory', rel), 'memory.limit_in_bytes', String(memoryLimitBytes ?? -1));
      return;
    }
    const dir = join(this.root, rel);
    if (this.opts.driver === 'cgroupfs') this.enableControllers(rel);
    this.write(dir, 'pids.max', pids === undefined ? 'max' : String(pids));
    // cgroup v2's weight from v1 shares, as runc converts them
    this.write(dir, 'cpu.weight', String(Math.floor(1 + ((cpuShares - 2) * 9999) / 262142)));
    this.write(dir, 'cpu.max', `${cpuQuotaUs ?? 'max'} ${CFS_PERIOD_US}`);
    this.write(dir, 'memory.max', memoryLimitBytes === undefined ? 'max' : String(memoryLimitBytes));
  }

  /** Removes the pod's cgroup once its sandbox is gone (whatever QoS class it had); the QoS cgroups stay. */
  remove(uid: string): void {
    const names = [['kubepods', `pod${uid}`], ['kubepods', 'burstable', `pod${uid}`], ['kubepods', 'besteffort', `pod${uid}`]];
    const hierarchies = this.opts.version === 2 ? [this.root] : this.hierarchies();
    for (const name of names) {
      const rel = relativePath(name, this.opts.driver);
      for (const h of hierarchies) {
        try {
          rmdirSync(join(h, rel));
        } catch {
          // not there, or still holding a container cgroup the runtime removes
        }
      }
    }
  }

  private hierarchies(): string[] {
    try {
      return readdirSync(this.root, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'unified' && d.name !== 'systemd').map((d) => join(this.root, d.name));
    } catch {
      return [];
    }
  }

  /** cgroup v2: a child only gets a controller's files when every ancestor delegates it. */
  private enableControllers(rel: string): void {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const dir = join(this.root, ...parts.slice(0, i));
      mkdirSync(join(dir, parts[i]!), { recursive: true });
      const available = readFileSync(join(dir, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
      const wanted = ['cpu', 'memory', 'pids'].filter((c) => available.includes(c));
      if (wanted.length) writeFileSync(join(dir, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    }
  }

  private write(dir: string, file: string, value: string): void {
    if (this.opts.driver === 'cgroupfs') mkdirSync(dir, { recursive: true });
    else if (!existsSync(dir)) return;
    writeFileSync(join(dir, file), value);
  }
}
