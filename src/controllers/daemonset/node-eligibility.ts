import type { Node, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** Whether a daemon pod belongs on a node: shouldRun (place one) and shouldContinueRunning (keep an existing one). */
export interface DaemonNodeFit {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/** Upstream's toleration matching: key (or empty key with Exists: every key), operator, value and effect (empty: every effect). */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (!toleration.key && toleration.operator !== 'Exists') return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** Taints with one of `effects` that no toleration tolerates. */
export function untoleratedTaints(taints: readonly Taint[], tolerations: readonly Toleration[], effects: readonly string[]): Taint[] {
  return taints.filter((t) => effects.includes(t.effect) && !tolerations.some((tol) => toleratesTaint(tol, t)));
}

function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0])) return false;
      return req.operator === 'Gt' ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
    default:
      return false;
  }
}

/** One term: its label expressions and field expressions ANDed; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length + fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  const nodeFields: Record<string, string | undefined> = { 'metadata.name': node.metadata?.name };
  return (
    expressions.every((r) => requirementMatches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) &&
    fields.every((r) => requirementMatches(r, nodeFields[r.key]))
  );
}

/** spec.nodeSelector and required node affinity (its terms ORed), as the scheduler checks them. */
export function fitsNodeAffinity(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return required.nodeSelectorTerms.some((t) => nodeSelectorTermMatches(t, node));
}

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
