/**
 * The kubelet's stats summary (`/stats/summary`, upstream's
 * k8s.io/kubelet/pkg/apis/stats/v1alpha1 Summary), the CPU and memory parts.
 */

export interface CPUStats {
  time: string;
  /** Average over the last sampling window, in billionths of a core. */
  usageNanoCores?: number;
  /** Cumulative CPU time over all cores, in nanoseconds. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
}

export interface ContainerStatsSummary {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStatsSummary[];
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}
