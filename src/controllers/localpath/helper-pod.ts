import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import { dirname } from 'node:path';

/** Where helper pods run, as k3s runs its provisioner's in a system namespace. */
export const HELPER_NAMESPACE = 'kube-system';
/** Names the volume a helper pod works for (PV names fit a label value). */
export const HELPER_VOLUME_LABEL = 'local-path-provisioner.skiff.io/volume';

export function deleteHelperPodName(pvName: string): string {
  return `helper-pod-delete-${pvName}`;
}

/** The node a local-path volume lives on: its required node affinity's hostname. */
export function volumeNode(pv: PersistentVolume): string | undefined {
  for (const term of pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const e of term.matchExpressions ?? []) {
      if (e.key === 'kubernetes.io/hostname' && e.operator === 'In' && e.values?.length === 1) return e.values[0];
    }
  }
  return undefined;
}

/**
 * The pod that removes a volume's directory on its node (k3s's teardown
 * helper): pinned to the node, tolerating everything, mounting the parent
 * directory at the same path so the command means the same thing in every
 * runtime.
 */
export function newDeleteHelperPod(pv: PersistentVolume, node: string, image: string): Pod {
  const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path ?? '';
  const parent = dirname(path);
  const name = pv.metadata?.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: deleteHelperPodName(name), namespace: HELPER_NAMESPACE, labels: { [HELPER_VOLUME_LABEL]: name } },
    spec: {
      nodeName: node,
      restartPolicy: 'Never',
      priorityClassName: 'system-node-critical',
      tolerations: [{ operator: 'Exists' }],
      automountServiceAccountToken: false,
      volumes: [{ name: 'data', hostPath: { path: parent, type: 'DirectoryOrCreate' } }],
      containers: [
        {
          name: 'helper-pod',
          image,
          imagePullPolicy: 'IfNotPresent',
          command: ['/bin/sh', '-c', 'rm -rf -- "$VOL_DIR"'],
          env: [{ name: 'VOL_DIR', value: path }],
          volumeMounts: [{ name: 'data', mountPath: parent }],
        },
      ],
    },
  };
}
