import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { podSpecMatchesNode } from '../../../machinery/node-selection.js';

export { matchNodeSelector, matchNodeSelectorTerm } from '../../../machinery/node-selection.js';

/** spec.nodeSelector and requiredDuringScheduling node affinity, both of which must hold. */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  return podSpecMatchesNode(pod.spec, node);
}
