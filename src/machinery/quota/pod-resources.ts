import type { Pod } from 'kubernetes-types/core/v1.js';
import { addUsage, toUsage, type Usage } from './resource-list.js';

function maxInto(list: Usage, more: Usage): void {
  for (const [k, q] of more) if (!list.has(k) || q.cmp(list.get(k)!) > 0) list.set(k, q);
}

/**
 * The pod's effective requests or limits, as upstream's PodRequests and
 * PodLimits: the sum over its containers and sidecars (restartable init
 * containers), at least the largest init container (plus the sidecars
 * started before it), plus the pod overhead.
 */
export function podResources(pod: Pod, kind: 'requests' | 'limits'): Usage {
  let total: Usage = new Map();
  for (const c of pod.spec?.containers ?? []) total = addUsage(total, toUsage(c.resources?.[kind] as Record<string, string>));
  let sidecars: Usage = new Map();
  const init: Usage = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = toUsage(c.resources?.[kind] as Record<string, string>);
    if (c.restartPolicy === 'Always') {
      total = addUsage(total, own);
      sidecars = addUsage(sidecars, own);
      maxInto(init, sidecars);
    } else {
      maxInto(init, addUsage(own, sidecars));
    }
  }
  maxInto(total, init);
  if (pod.spec?.overhead) total = addUsage(total, toUsage(pod.spec.overhead as Record<string, string>));
  return total;
}
