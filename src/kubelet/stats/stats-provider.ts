import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerStats, StatsRuntime } from '../runtime/runtime.js';
import { filesystemStats } from './fs-stats.js';
import { readNodeUsage, readRlimit, type NodeUsage } from './node-usage.js';
import { podFsStats } from './pod-fs-stats.js';
import type { ContainerStatsSummary, CPUStats, FsStats, MemoryStats, NodeStats, PodStats, Summary } from './summary.js';

export interface StatsProviderOptions {
  nodeName: string;
  /** The runtime's container figures; absent, pods are listed without usage. */
  runtime?: StatsRuntime;
  /** The pods this kubelet runs (their names, namespaces and start times). */
  pods: () => Pod[];
  /** The node's figures; default /proc. */
  nodeUsage?: () => Promise<NodeUsage>;
  /**
   * The kubelet's root dir, for the filesystem figures (nodefs, pods'
   * volumes and logs); absent, summaries carry none.
   */
  rootDir?: string;
  /** The runtime's image filesystem; default: the root dir's (the process runtime keeps no images). */
  imageFs?: () => Promise<{ capacityBytes: number; availableBytes: number }>;
  /** The node's process limit and count; default /proc. */
  rlimit?: () => Promise<{ maxpid: number; curproc: number }>;
}

export interface CollectOptions {
  /** Also measure filesystems, volumes and logs (walks directories: for /stats/summary and eviction, not every metrics scrape). */
  fs?: boolean;
}

interface Sample {
  at: number;
  cpu: number;
  rate?: number;
}

/** Samples closer together than this keep the previous rate: a rate over a few milliseconds is noise. */
const MIN_WINDOW_MS = 1000;

/**
 * Builds the stats summary from the runtime's container stats and the
 * node's /proc figures. Rates (usageNanoCores) come from the previous
 * sample of the same container, as cAdvisor's do, unless the runtime
 * reports its own; the first look at a container has none.
 */
export class StatsProvider {
  private readonly samples = new Map<string, Sample>();

  constructor(private readonly opts: StatsProviderOptions) {}

  async summary(): Promise<Summary> {
    return (await this.collect()).summary;
  }

  /** The summary, and whether the runtime's figures could not be read (the node's are still there). */
  async collect(options: CollectOptions = {}): Promise<{ summary: Summary; scrapeError: boolean }> {
    let scrapeError = false;
    const [node, stats] = await Promise.all([
      (this.opts.nodeUsage ?? readNodeUsage)(),
      this.opts.runtime
        ? this.opts.runtime.listContainerStats().catch(() => {
            scrapeError = true;
            return [];
          })
        : Promise.resolve([]),
    ]);
    const now = new Date();
    const seen = new Set<string>(['node']);
    const nodeCpu = this.cpu('node', now, node.usageCoreNanoSeconds);
    const byPod = new Map<string, ContainerStats[]>();
    for (const s of stats) {
      if (!s.podUid) continue;
      byPod.set(s.podUid, [...(byPod.get(s.podUid) ?? []), s]);
    }
    const withFs = options.fs === true && this.opts.rootDir !== undefined;
    const nodeFs = withFs ? await filesystemStats(this.opts.rootDir!, now) : undefined;
    const pods: PodStats[] = [];
    for (const pod of this.opts.pods()) {
      const uid = pod.metadata?.uid ?? '';
      const own = byPod.get(uid) ?? (withFs ? [] : undefined);
      if (!own) continue;
      const started = new Map((pod.status?.containerStatuses ?? []).map((c) => [c.name, c.state?.running?.startedAt]));
      const containers: ContainerStatsSummary[] = own.map((s) => {
        seen.add(s.id);
        const cpu = s.usageCoreNanoSeconds === undefined ? undefined : this.cpu(s.id, s.timestamp, s.usageCoreNanoSeconds, s.usageNanoCores);
        return {
          name: s.name,
          startTime: started.get(s.name) ?? pod.status?.startTime ?? s.timestamp.toISOString(),
          ...(cpu ? { cpu } : {}),
          ...(memory(s) ? { memory: memory(s) } : {}),
        };
      });
      const podStats: PodStats = {
        podRef: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', uid },
        startTime: pod.status?.startTime ?? now.toISOString(),
        containers,
        ...sumPod(containers, now),
      };
      pods.push(withFs ? { ...podStats, ...(await podFsStats(this.opts.rootDir!, pod, containers, nodeFs, now)) } : podStats);
    }
    // forget containers that are gone
    for (const id of this.samples.keys()) if (!seen.has(id)) this.samples.delete(id);
    const summary: Summary = {
      node: {
        nodeName: this.opts.nodeName,
        startTime: node.bootTime.toISOString(),
        cpu: nodeCpu,
        memory: { time: now.toISOString(), ...node.memory },
        ...(withFs ? await this.nodeFs(nodeFs, now) : {}),
      },
      pods,
    };
    return { summary, scrapeError };
  }

  /** nodefs, imagefs (the root dir's unless the runtime has its own) and the process limit. */
  private async nodeFs(nodeFs: FsStats | undefined, now: Date): Promise<Pick<NodeStats, 'fs' | 'runtime' | 'rlimit'>> {
    const time = now.toISOString();
    let imageFs: FsStats | undefined = nodeFs;
    if (this.opts.imageFs) {
      try {
        const s = await this.opts.imageFs();
        imageFs = { time, availableBytes: s.availableBytes, capacityBytes: s.capacityBytes, usedBytes: Math.max(0, s.capacityBytes - s.availableBytes) };
      } catch {
        imageFs = undefined;
      }
    }
    const limits = await (this.opts.rlimit ?? readRlimit)().catch(() => undefined);
    return {
      ...(nodeFs ? { fs: nodeFs } : {}),
      ...(imageFs ? { runtime: { imageFs } } : {}),
      ...(limits ? { rlimit: { time, ...limits } } : {}),
    };
  }

  private cpu(id: string, at: Date, total: number, runtimeRate?: number): CPUStats {
    const prev = this.samples.get(id);
    const t = at.getTime();
    let rate = runtimeRate || undefined;
    if (rate === undefined && prev) {
      if (t - prev.at >= MIN_WINDOW_MS && total >= prev.cpu) rate = Math.round(((total - prev.cpu) / (t - prev.at)) * 1e3);
      else rate = prev.rate;
    }
    if (!prev || t - prev.at >= MIN_WINDOW_MS || total < prev.cpu) this.samples.set(id, { at: t, cpu: total, rate });
    return { time: at.toISOString(), usageCoreNanoSeconds: Math.round(total), ...(rate !== undefined ? { usageNanoCores: rate } : {}) };
  }
}

function memory(s: ContainerStats): MemoryStats | undefined {
  if (s.workingSetBytes === undefined) return undefined;
  return {
    time: s.timestamp.toISOString(),
    workingSetBytes: s.workingSetBytes,
    ...(s.usageBytes !== undefined ? { usageBytes: s.usageBytes } : {}),
    ...(s.rssBytes !== undefined ? { rssBytes: s.rssBytes } : {}),
  };
}

/** A pod's figures are its containers' sums (upstream reads the pod cgroup; skiff's pods have none of their own). */
function sumPod(containers: ContainerStatsSummary[], now: Date): Pick<PodStats, 'cpu' | 'memory'> {
  const out: Pick<PodStats, 'cpu' | 'memory'> = {};
  const cpus = containers.map((c) => c.cpu).filter((c): c is CPUStats => c !== undefined);
  if (cpus.length > 0) {
    out.cpu = { time: now.toISOString(), usageCoreNanoSeconds: cpus.reduce((a, c) => a + (c.usageCoreNanoSeconds ?? 0), 0) };
    if (cpus.every((c) => c.usageNanoCores !== undefined)) out.cpu.usageNanoCores = cpus.reduce((a, c) => a + c.usageNanoCores!, 0);
  }
  const mems = containers.map((c) => c.memory).filter((m): m is MemoryStats => m !== undefined);
  if (mems.length > 0) out.memory = { time: now.toISOString(), workingSetBytes: mems.reduce((a, m) => a + (m.workingSetBytes ?? 0), 0) };
  return out;
}
