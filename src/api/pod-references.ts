import type { Container, EphemeralContainer, Pod, Volume } from 'kubernetes-types/core/v1.js';

/**
 * The objects a pod's spec names, as upstream's VisitPodSecretNames and
 * VisitPodConfigmapNames: what the kubelet must read to run it, and what the
 * Node authorizer lets a node read because of it. All are in the pod's
 * namespace.
 */
export interface PodReferences {
  secrets: Set<string>;
  configMaps: Set<string>;
  persistentVolumeClaims: Set<string>;
  /** The pod's service account ('' when unset). */
  serviceAccount: string;
}

function containersOf(pod: Pod): (Container | EphemeralContainer)[] {
  const spec = pod.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])];
}

function add(set: Set<string>, name: string | undefined): void {
  if (name) set.add(name);
}

function volumeSecrets(v: Volume, out: Set<string>): void {
  add(out, v.secret?.secretName);
  for (const s of v.projected?.sources ?? []) add(out, s.secret?.name);
  add(out, v.csi?.nodePublishSecretRef?.name);
  add(out, v.azureFile?.secretName);
  add(out, v.cephfs?.secretRef?.name);
  add(out, v.cinder?.secretRef?.name);
  add(out, v.flexVolume?.secretRef?.name);
  add(out, v.iscsi?.secretRef?.name);
  add(out, v.rbd?.secretRef?.name);
  add(out, v.scaleIO?.secretRef?.name);
  add(out, v.storageos?.secretRef?.name);
}

/** Every secret, config map and claim a pod refers to, and its service account. */
export function podReferences(pod: Pod): PodReferences {
  const refs: PodReferences = { secrets: new Set(), configMaps: new Set(), persistentVolumeClaims: new Set(), serviceAccount: pod.spec?.serviceAccountName ?? '' };
  for (const s of pod.spec?.imagePullSecrets ?? []) add(refs.secrets, s.name);
  for (const c of containersOf(pod)) {
    for (const from of c.envFrom ?? []) {
      add(refs.secrets, from.secretRef?.name);
      add(refs.configMaps, from.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      add(refs.secrets, e.valueFrom?.secretKeyRef?.name);
      add(refs.configMaps, e.valueFrom?.configMapKeyRef?.name);
    }
  }
  for (const v of pod.spec?.volumes ?? []) {
    volumeSecrets(v, refs.secrets);
    add(refs.configMaps, v.configMap?.name);
    for (const s of v.projected?.sources ?? []) add(refs.configMaps, s.configMap?.name);
    add(refs.persistentVolumeClaims, v.persistentVolumeClaim?.claimName);
    // a generic ephemeral volume's claim is named <pod>-<volume>
    if (v.ephemeral && pod.metadata?.name) refs.persistentVolumeClaims.add(`${pod.metadata.name}-${v.name}`);
  }
  return refs;
}
