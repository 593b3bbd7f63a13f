import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Lister } from '../../../client/cache/lister.js';
import { labelSelectorFromObject, Requirement, selectorFromRequirements, selectorFromSet, type Selector } from '../../../machinery/labels/index.js';

export interface WorkloadListers {
  services: Lister<Service>;
  replicaSets: Lister<ReplicaSet>;
  statefulSets: Lister<StatefulSet>;
}

/**
 * The selector system-default spreading uses for a pod: the union of the
 * selectors of the Services that select it and of its ReplicaSet or
 * StatefulSet owner (upstream's helper.DefaultSelector).
 */
export function defaultSelector(pod: Pod, listers: WorkloadListers): Selector {
  const ns = pod.metadata?.namespace ?? 'default';
  const labels = pod.metadata?.labels ?? {};
  const reqs: Requirement[] = [];
  for (const svc of listers.services.namespace(ns).list()) {
    const sel = svc.spec?.selector;
    if (!sel || Object.keys(sel).length === 0) continue;
    if (selectorFromSet(sel).matches(labels)) reqs.push(...selectorFromSet(sel).requirements());
  }
  for (const ref of pod.metadata?.ownerReferences ?? []) {
    if (!ref.controller) continue;
    const owner = ref.kind === 'ReplicaSet' ? listers.replicaSets.namespace(ns).get(ref.name) : ref.kind === 'StatefulSet' ? listers.statefulSets.namespace(ns).get(ref.name) : undefined;
    if (owner?.spec?.selector) reqs.push(...labelSelectorFromObject(owner.spec.selector).requirements());
  }
  return selectorFromRequirements(reqs);
}
