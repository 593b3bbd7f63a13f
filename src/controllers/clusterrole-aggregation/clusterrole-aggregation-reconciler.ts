import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import type { Reconciler } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isConflict, isNotFound } from '../../client/rest/error-predicates.js';
import { semanticEqual } from '../semantic-equal.js';
import { aggregateRules } from './aggregate-rules.js';
import { CLUSTER_ROLES } from '../../api/resource-refs.js';

/** Keeps the rules of each ClusterRole with an aggregationRule equal to the union of the roles it selects. */
export class ClusterRoleAggregationReconciler implements Reconciler {
  constructor(private readonly o: { client: Client; clusterRoles: Lister<ClusterRole> }) {}

  async reconcile(name: string, signal: AbortSignal): Promise<void> {
    const role = this.o.clusterRoles.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregateRules(role, this.o.clusterRoles.list());
    if (semanticEqual(rules, role.rules ?? [])) return;
    try {
      await this.o.client.resource<ClusterRole>(CLUSTER_ROLES).update({ ...structuredClone(role), rules }, { signal });
    } catch (err) {
      // a newer version will come through the watch and be reconciled again
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
}
