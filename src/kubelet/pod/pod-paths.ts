import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** A pod's directory under the kubelet's root dir (`pods/<uid>`): its volumes live in `volumes/kubernetes.io~<plugin>/<name>`. */
export function podDir(rootDir: string, uid: string): string {
  return join(rootDir, 'pods', uid);
}

/** The pod's local volumes (emptyDir, configMap, secret, downwardAPI, projected). */
export function podVolumesDir(rootDir: string, uid: string): string {
  return join(podDir(rootDir, uid), 'volumes');
}

/** Upstream's /var/log/pods layout under the root dir: `pod-logs/<namespace>_<name>_<uid>/<container>/<restartCount>.log`. */
export function podLogDir(rootDir: string, pod: Pod): string {
  return join(rootDir, 'pod-logs', `${pod.metadata?.namespace ?? 'default'}_${pod.metadata?.name ?? ''}_${pod.metadata?.uid ?? ''}`);
}
