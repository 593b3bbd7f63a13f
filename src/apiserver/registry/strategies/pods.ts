import type { Container, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { asKind, type KubeObject } from '../../../api/object.js';
import type { ResourceInfo } from '../../../api/resource-info.js';
import { defaultStrategy, metadataFields } from '../default-strategy.js';
import type { PartialUpdate, Strategy } from '../strategy.js';
import { validatePodEphemeralContainersUpdate } from '../../../api/validation/pod.js';

/** Pods: Pending on create, graceful deletion once bound to a node, kubelet-facing field selectors. */
export function podStrategy(info: ResourceInfo): Strategy {
  return defaultStrategy(info, {
    prepareForCreate(obj) {
      const pod = asKind<Pod>(obj);
      pod.status = { phase: 'Pending', qosClass: qosClass(pod.spec) };
    },
    selectableFields(obj) {
      const pod = asKind<Pod>(obj);
      return {
        ...metadataFields(obj, info),
        'spec.nodeName': pod.spec?.nodeName ?? '',
        'spec.restartPolicy': pod.spec?.restartPolicy ?? '',
        'spec.schedulerName': pod.spec?.schedulerName ?? '',
        'spec.serviceAccountName': pod.spec?.serviceAccountName ?? '',
        'spec.hostNetwork': String(pod.spec?.hostNetwork ?? false),
        'status.phase': pod.status?.phase ?? '',
        'status.podIP': pod.status?.podIP ?? '',
        'status.nominatedNodeName': pod.status?.nominatedNodeName ?? '',
      };
    },
    gracePeriodSeconds(obj: KubeObject, requested) {
      const pod = asKind<Pod>(obj);
      // nothing runs an unscheduled or finished pod, so nobody needs to confirm its end
      if (!pod.spec?.nodeName) return 0;
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return 0;
      return Math.max(0, requested ?? pod.spec.terminationGracePeriodSeconds ?? 30);
    },
    returnDeletedObject: true,
    partialUpdates: { ephemeralcontainers: ephemeralContainersUpdate },
  });
}

/** pods/ephemeralcontainers changes spec.ephemeralContainers and nothing else (upstream's dropNonEphemeralContainerUpdates). */
const ephemeralContainersUpdate: PartialUpdate = {
  take(body, current) {
    const pod = asKind<Pod>(current);
    const wanted = asKind<Pod>(body).spec?.ephemeralContainers;
    pod.spec = { ...pod.spec!, ephemeralContainers: wanted };
    if (!wanted) delete pod.spec.ephemeralContainers;
    if (body.metadata?.resourceVersion) pod.metadata = { ...pod.metadata, resourceVersion: body.metadata.resourceVersion };
    return current;
  },
  validateUpdate: (obj, old) => validatePodEphemeralContainersUpdate(asKind<Pod>(obj), asKind<Pod>(old)),
};

/** The QoS class as upstream computes it from requests and limits. */
export function qosClass(spec: PodSpec | undefined): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers: Container[] = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) anySet = true;
      if (lim[r] === undefined || (req[r] !== undefined && String(req[r]) !== String(lim[r]))) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
