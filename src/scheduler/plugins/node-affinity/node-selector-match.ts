import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod } from 'kubernetes-types/core/v1.js';

function matchRequirement(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
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
      // Both sides must be integers; anything else never matches.
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0])) return false;
      const a = BigInt(value);
      const b = BigInt(values[0]);
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** A term matches when all its expressions and fields do; an empty term matches nothing. */
export function matchNodeSelectorTerm(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  for (const r of exprs) if (!matchRequirement(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) return false;
  for (const f of fields) {
    // metadata.name is the only supported field, as upstream.
    if (f.key !== 'metadata.name' || !matchRequirement(f, node.metadata?.name)) return false;
  }
  return true;
}

/** Terms are ORed. */
export function matchNodeSelector(sel: NodeSelector, node: Node): boolean {
  return sel.nodeSelectorTerms.some((t) => matchNodeSelectorTerm(t, node));
}

/** spec.nodeSelector and requiredDuringScheduling node affinity, both of which must hold. */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return !required || matchNodeSelector(required, node);
}
