/**
 * The kubelet's stats summary (`/stats/summary`, upstream's
 * k8s.io/kubelet/pkg/apis/stats/v1alpha1 Summary): CPU and memory, and the
 * filesystem, process and rlimit figures the eviction manager reads.
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

/** A filesystem's (or a directory's) bytes and inodes; usage is what the measured thing holds, the rest is the filesystem's. */
export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface VolumeStats extends FsStats {
  name: string;
}

export interface ProcessStats {
  process_count?: number;
}

export interface ContainerStatsSummary {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  /** The container's writable layer (none on the process runtime, whose containers write to the host). */
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStatsSummary[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  /** Pod-local volumes (emptyDir, configMap, secret, downwardAPI, projected) under the pod's directory. */
  volume?: VolumeStats[];
  /** Everything the pod holds on the node's filesystem: its containers' layers and logs and its local volumes. */
  'ephemeral-storage'?: FsStats;
  process_stats?: ProcessStats;
}

export interface RlimitStats {
  time: string;
  maxpid?: number;
  curproc?: number;
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  /** The filesystem of the kubelet's root dir (nodefs). */
  fs?: FsStats;
  /** The runtime's image filesystem (imagefs). */
  runtime?: { imageFs?: FsStats };
  rlimit?: RlimitStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}
