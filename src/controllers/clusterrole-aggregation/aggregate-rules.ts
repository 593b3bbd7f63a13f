import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import { semanticEqual } from '../semantic-equal.js';

/**
 * The rules an aggregated ClusterRole should hold: the rules of every other
 * ClusterRole matched by one of its selectors, in name order, each distinct
 * rule once (upstream's ClusterRoleAggregationController.syncClusterRole).
 */
export function aggregateRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []).flatMap((s) => {
    try {
      return [labelSelectorFromObject(s)];
    } catch {
      return []; // validation keeps these out; an old stored one selects nothing
    }
  });
  const sources = all
    .filter((c) => c.metadata?.name !== role.metadata?.name && selectors.some((s) => s.matches(c.metadata?.labels ?? {})))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const rules: PolicyRule[] = [];
  for (const source of sources) {
    for (const rule of source.rules ?? []) if (!rules.some((r) => semanticEqual(r, rule))) rules.push(rule);
  }
  return rules;
}
