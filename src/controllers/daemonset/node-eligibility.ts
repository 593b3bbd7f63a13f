import type { Node, PodSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { podSpecMatchesNode, toleratesTaint } from '../../machinery/node-selection.js';

export { toleratesTaint };

/** Whether a daemon pod belongs on a node: shouldRun (place one) and shouldContinueRunning (keep an existing one). */
export interface DaemonNodeFit {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/** Taints with one of `effects` that no toleration tolerates. */
export function untoleratedTaints(taints: readonly Taint[], tolerations: readonly Toleration[], effects: readonly string[]): Taint[] {
  return taints.filter((t) => effects.includes(t.effect) && !tolerations.some((tol) => toleratesTaint(tol, t)));
}

/** spec.nodeSelector and required node affinity (its terms ORed), as the scheduler checks them. */
export const fitsNodeAffinity = (spec: PodSpec, node: Node): boolean => podSpecMatchesNode(spec, node);

/**
 * Upstream's NodeShouldRunDaemonPod for the daemon pod `spec` (already
 * carrying the default daemon tolerations): a pod runs where its node name,
 * node selector and affinity fit and no NoSchedule/NoExecute taint is
 * untolerated; an existing pod may stay unless a NoExecute taint evicts it.
 */
export function nodeShouldRunDaemonPod(node: Node, spec: PodSpec): DaemonNodeFit {
  if (spec.nodeName && spec.nodeName !== node.metadata?.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!fitsNodeAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints ?? [];
  const tolerations = spec.tolerations ?? [];
  return {
    shouldRun: untoleratedTaints(taints, tolerations, ['NoSchedule', 'NoExecute']).length === 0,
    shouldContinueRunning: untoleratedTaints(taints, tolerations, ['NoExecute']).length === 0,
  };
}
