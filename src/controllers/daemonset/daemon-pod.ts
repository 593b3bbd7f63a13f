import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { NodeSelectorTerm, Pod, PodSpec, Toleration } from 'kubernetes-types/core/v1.js';
import { newControllerRef } from '../controller-ref.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/controller-revision.js';

export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/**
 * The tolerations upstream adds to every daemon pod so that node conditions
 * (not ready, unreachable, pressure, cordoned) do not evict or block it; the
 * network-unavailable one only for host-network pods, as upstream.
 */
export function defaultDaemonTolerations(spec: PodSpec | undefined): Toleration[] {
  const tolerations: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec?.hostNetwork) tolerations.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return tolerations;
}

/** Adds each default toleration unless one with the same key and effect is already there. */
export function withDaemonTolerations(spec: PodSpec): PodSpec {
  const tolerations = [...(spec.tolerations ?? [])];
  for (const t of defaultDaemonTolerations(spec)) {
    if (!tolerations.some((x) => x.key === t.key && x.effect === t.effect)) tolerations.push(t);
  }
  return { ...spec, tolerations };
}

/**
 * Upstream's ReplaceDaemonSetPodNodeNameNodeAffinity: the pod requires
 * `metadata.name In [node]`; each existing term keeps its label expressions,
 * so the default scheduler places (binds) the pod exactly on that node.
 */
export function withNodeNameAffinity(spec: PodSpec, nodeName: string): PodSpec {
  const field = { key: 'metadata.name', operator: 'In', values: [nodeName] };
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms: NodeSelectorTerm[] = required?.nodeSelectorTerms?.length
    ? required.nodeSelectorTerms.map((t) => ({ ...t, matchFields: [field] }))
    : [{ matchFields: [field] }];
  return {
    ...spec,
    affinity: { ...(spec.affinity ?? {}), nodeAffinity: { ...(spec.affinity?.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
  };
}

/** The node a daemon pod is on or meant for: its nodeName, or the node its affinity pins it to. */
export function daemonPodTargetNode(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    const f = term.matchFields?.find((m) => m.key === 'metadata.name' && m.operator === 'In' && m.values?.length === 1);
    if (f) return f.values![0];
  }
  return undefined;
}

/** The daemon pod for one node, from the DaemonSet's template at revision `hash`. */
export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const template = structuredClone(ds.spec?.template ?? {});
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ds.metadata?.name}-`,
      namespace: ds.metadata?.namespace,
      labels: {
        ...(template.metadata?.labels ?? {}),
        [CONTROLLER_REVISION_HASH_LABEL]: hash,
        [POD_TEMPLATE_GENERATION_LABEL]: String(ds.metadata?.generation ?? 1),
      },
      annotations: { ...(template.metadata?.annotations ?? {}) },
      ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
    },
    spec: withNodeNameAffinity(withDaemonTolerations(template.spec ?? { containers: [] }), nodeName),
  };
}
