import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { ClusterRoleAggregationReconciler } from './clusterrole-aggregation-reconciler.js';
import { CLUSTER_ROLES } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'clusterrole-aggregation',
  async start(ctx) {
    const clusterRoles = ctx.informers.forResource<ClusterRole>(CLUSTER_ROLES);
    const reconciler = new ClusterRoleAggregationReconciler({ client: ctx.client, clusterRoles: clusterRoles.lister });
    const c = newController(ctx, {
      workers: 1,
      reconciler,
    })
      // any change to any cluster role may change what an aggregated one selects
      .watches(clusterRoles, {
        enqueue: () =>
          clusterRoles.lister
            .list()
            .filter((c) => c.aggregationRule)
            .map((c) => c.metadata?.name ?? ''),
      });
    await c.run(ctx.signal);
  },
};
