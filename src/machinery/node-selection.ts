import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';

/**
 * Which nodes a pod may go to, as upstream decides it: node selectors and
 * required node affinity (core/v1 helpers), and toleration of taints. Shared
 * by the scheduler and the DaemonSet controller, which must agree.
 */

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
export function podSpecMatchesNode(spec: PodSpec | undefined, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return !required || matchNodeSelector(required, node);
}

/** core/v1 Toleration.ToleratesTaint: empty key with Exists tolerates everything. */
export function toleratesTaint(t: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  switch (t.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}
