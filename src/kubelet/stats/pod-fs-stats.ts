import { join } from 'node:path';
import type { Pod, Volume } from 'kubernetes-types/core/v1.js';
import { podLogDir, podVolumesDir } from '../pod/pod-paths.js';
import { directoryUsage } from './fs-stats.js';
import type { ContainerStatsSummary, FsStats, PodStats, VolumeStats } from './summary.js';

/** The volume plugin directory a local volume lives in, or undefined for volumes that are not on the node's filesystem. */
function localPlugin(v: Volume): string | undefined {
  // a memory-backed emptyDir is memory, not disk (upstream's IsLocalEphemeralVolume)
  if (v.emptyDir) return v.emptyDir.medium === 'Memory' ? undefined : 'empty-dir';
  if (v.configMap) return 'configmap';
  if (v.secret) return 'secret';
  if (v.downwardAPI) return 'downward-api';
  if (v.projected) return 'projected';
  return undefined;
}

/** Usage of one directory, with the filesystem's free space and size around it (as upstream's FsStats). */
async function usageStats(path: string, nodeFs: FsStats | undefined, time: string): Promise<FsStats> {
  const u = await directoryUsage(path);
  return {
    time,
    ...(nodeFs?.availableBytes !== undefined ? { availableBytes: nodeFs.availableBytes } : {}),
    ...(nodeFs?.capacityBytes !== undefined ? { capacityBytes: nodeFs.capacityBytes } : {}),
    usedBytes: u.usedBytes,
    ...(nodeFs?.inodesFree !== undefined ? { inodesFree: nodeFs.inodesFree } : {}),
    ...(nodeFs?.inodes !== undefined ? { inodes: nodeFs.inodes } : {}),
    inodesUsed: u.inodesUsed,
  };
}

/**
 * A pod's disk figures: each local volume, each container's logs, and their
 * sum as the pod's `ephemeral-storage` (upstream also counts each
 * container's writable layer; the process runtime's containers have none).
 */
export async function podFsStats(rootDir: string, pod: Pod, containers: ContainerStatsSummary[], nodeFs: FsStats | undefined, now: Date): Promise<Pick<PodStats, 'volume' | 'ephemeral-storage' | 'containers'>> {
  const time = now.toISOString();
  const uid = pod.metadata?.uid ?? '';
  const volume: VolumeStats[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    const plugin = localPlugin(v);
    if (!plugin) continue;
    volume.push({ name: v.name, ...(await usageStats(join(podVolumesDir(rootDir, uid), `kubernetes.io~${plugin}`, v.name), nodeFs, time)) });
  }
  const logDir = podLogDir(rootDir, pod);
  const withLogs: ContainerStatsSummary[] = [];
  for (const c of containers) withLogs.push({ ...c, logs: await usageStats(join(logDir, c.name), nodeFs, time) });
  const parts = [...volume, ...withLogs.flatMap((c) => [c.logs, c.rootfs]).filter((f): f is FsStats => f !== undefined)];
  const ephemeral: FsStats = {
    time,
    ...(nodeFs?.availableBytes !== undefined ? { availableBytes: nodeFs.availableBytes } : {}),
    ...(nodeFs?.capacityBytes !== undefined ? { capacityBytes: nodeFs.capacityBytes } : {}),
    usedBytes: parts.reduce((a, f) => a + (f.usedBytes ?? 0), 0),
    inodesUsed: parts.reduce((a, f) => a + (f.inodesUsed ?? 0), 0),
  };
  return { volume, 'ephemeral-storage': ephemeral, containers: withLogs };
}
