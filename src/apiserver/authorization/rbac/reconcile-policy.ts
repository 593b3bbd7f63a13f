import type { AggregationRule, ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { deepEqual } from '../../../api/validation/errors.js';
import { uncoveredRules } from './covers.js';
import { AUTOUPDATE_ANNOTATION } from './bootstrap-policy.js';

/**
 * What starting the API server does to one piece of the default policy, as
 * upstream's reconciliation package: create what is missing; otherwise add
 * missing rules, aggregation selectors, subjects, labels and annotations
 * without removing anything a user added; recreate a binding whose roleRef
 * differs; leave objects annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` alone.
 */
export type Reconciliation<T> = { action: 'none' } | { action: 'create' | 'update' | 'recreate'; object: T };

/** Expected labels/annotations fill in; existing values win. */
function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  const merged = { ...(expected ?? {}), ...(existing ?? {}) };
  return Object.keys(merged).length ? merged : undefined;
}

const isProtected = (obj: { metadata?: { annotations?: Record<string, string> } }) => obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

function missingSelectors(existing: AggregationRule | undefined, expected: AggregationRule | undefined) {
  const have = existing?.clusterRoleSelectors ?? [];
  return (expected?.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => deepEqual(h, s)));
}

export function reconcileRole<T extends Role | ClusterRole>(existing: T | undefined, expected: T): Reconciliation<T> {
  if (!existing) return { action: 'create', object: structuredClone(expected) };
  if (isProtected(existing)) return { action: 'none' };
  const result = structuredClone(existing) as T & { aggregationRule?: AggregationRule };
  result.metadata = { ...result.metadata, labels: mergeMaps(expected.metadata?.labels, existing.metadata?.labels), annotations: mergeMaps(expected.metadata?.annotations, existing.metadata?.annotations) };
  const missing = uncoveredRules(existing.rules ?? [], expected.rules ?? []);
  if (missing.length) result.rules = [...(existing.rules ?? []), ...missing];
  const selectors = missingSelectors((existing as ClusterRole).aggregationRule, (expected as ClusterRole).aggregationRule);
  if (selectors.length) result.aggregationRule = { clusterRoleSelectors: [...((existing as ClusterRole).aggregationRule?.clusterRoleSelectors ?? []), ...selectors] };
  return deepEqual(result, existing) ? { action: 'none' } : { action: 'update', object: result };
}

const sameSubject = (a: Subject, b: Subject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

export function reconcileBinding<T extends RoleBinding | ClusterRoleBinding>(existing: T | undefined, expected: T): Reconciliation<T> {
  if (!existing) return { action: 'create', object: structuredClone(expected) };
  if (isProtected(existing)) return { action: 'none' };
  if (!deepEqual(existing.roleRef, expected.roleRef)) return { action: 'recreate', object: structuredClone(expected) };
  const result = structuredClone(existing);
  result.metadata = { ...result.metadata, labels: mergeMaps(expected.metadata?.labels, existing.metadata?.labels), annotations: mergeMaps(expected.metadata?.annotations, existing.metadata?.annotations) };
  const missing = (expected.subjects ?? []).filter((s) => !(existing.subjects ?? []).some((e) => sameSubject(e, s)));
  if (missing.length) result.subjects = [...(existing.subjects ?? []), ...missing];
  return deepEqual(result, existing) ? { action: 'none' } : { action: 'update', object: result };
}
