import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod, PodTemplateSpec, Volume } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { newControllerRef } from '../controller-ref.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/controller-revision.js';

export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name}-${ordinal}`;
}

/** The ordinal in `<set>-<ordinal>`, or undefined if the pod's name does not have that form. */
export function podOrdinal(set: StatefulSet, pod: Pod): number | undefined {
  const prefix = `${set.metadata?.name}-`;
  const name = pod.metadata?.name ?? '';
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** `<claim>-<set>-<ordinal>`: the PVC a volumeClaimTemplate gives one ordinal. */
export function claimName(claimTemplateName: string, set: StatefulSet, ordinal: number): string {
  return `${claimTemplateName}-${podName(set, ordinal)}`;
}

/** The revision (ControllerRevision name) a pod was made from. */
export function podRevision(pod: Pod): string | undefined {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
}

/**
 * The pod for one ordinal from `template` (the template of `revision`): its
 * stable identity (name, hostname, subdomain, labels) and its claims in place
 * of the template's same-named volumes.
 */
export function newStatefulSetPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string): Pod {
  const t = structuredClone(template);
  const name = podName(set, ordinal);
  const spec = t.spec ?? { containers: [] };
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  const claims: Volume[] = (set.spec?.volumeClaimTemplates ?? []).map((c) => ({
    name: c.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: claimName(c.metadata?.name ?? '', set, ordinal) },
  }));
  if (claims.length > 0) {
    const claimed = new Set(claims.map((v) => v.name));
    spec.volumes = [...(spec.volumes ?? []).filter((v) => !claimed.has(v.name)), ...claims];
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels: {
        ...(t.metadata?.labels ?? {}),
        [STATEFULSET_POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
        [CONTROLLER_REVISION_HASH_LABEL]: revision,
      },
      annotations: { ...(t.metadata?.annotations ?? {}) },
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec,
  };
}

/** The claims of one ordinal, labelled with the set's selector; owned by the set when whenDeleted is Delete. */
export function newPersistentVolumeClaims(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  const retention = set.spec?.persistentVolumeClaimRetentionPolicy;
  const owners: OwnerReference[] = retention?.whenDeleted === 'Delete' ? [{ ...newControllerRef(set, 'apps/v1', 'StatefulSet'), controller: true }] : [];
  return (set.spec?.volumeClaimTemplates ?? []).map((template) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(template.metadata?.name ?? '', set, ordinal),
      namespace: set.metadata?.namespace,
      labels: { ...(template.metadata?.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) },
      annotations: { ...(template.metadata?.annotations ?? {}) },
      ...(owners.length > 0 ? { ownerReferences: owners } : {}),
    },
    spec: structuredClone(template.spec ?? {}),
  }));
}
