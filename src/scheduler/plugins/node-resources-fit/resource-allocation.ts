import type { NodeInfo } from '../../framework/node-info.js';
import type { Resource } from '../../framework/resource.js';

export interface ResourceSpec {
  name: string;
  weight: number;
}

export const DEFAULT_RESOURCES: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

/** One resource's amount out of a Resource, by its API name. */
export function resourceAmount(r: Resource, name: string): number {
  switch (name) {
    case 'cpu':
      return r.milliCPU;
    case 'memory':
      return r.memory;
    case 'ephemeral-storage':
      return r.ephemeralStorage;
    case 'pods':
      return r.allowedPodNumber;
    default:
      return r.scalar.get(name) ?? 0;
  }
}

/**
 * What the node would have requested with the pod on it, and its
 * allocatable, per resource. cpu and memory use the non-zero defaults for
 * containers without requests, so empty pods still spread.
 */
export function requestedAndAllocatable(node: NodeInfo, pod: { requests: Resource; nonZeroRequests: Resource }, name: string, nonZero = true): { requested: number; allocatable: number } {
  const useNonZero = nonZero && (name === 'cpu' || name === 'memory');
  const onNode = useNonZero ? node.nonZeroRequested : node.requested;
  const ofPod = useNonZero ? pod.nonZeroRequests : pod.requests;
  return { requested: resourceAmount(onNode, name) + resourceAmount(ofPod, name), allocatable: resourceAmount(node.allocatable, name) };
}
