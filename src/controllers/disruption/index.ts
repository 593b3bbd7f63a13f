import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { DisruptionReconciler } from './disruption-reconciler.js';
import { DEPLOYMENTS, PODS, POD_DISRUPTION_BUDGETS, REPLICA_SETS, REPLICATION_CONTROLLERS, STATEFUL_SETS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'disruption',
  async start(ctx) {
    const pdbs = ctx.informers.forResource<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const replicaSets = ctx.informers.forResource<ReplicaSet>(REPLICA_SETS);
    const deployments = ctx.informers.forResource<Deployment>(DEPLOYMENTS);
    const statefulSets = ctx.informers.forResource<StatefulSet>(STATEFUL_SETS);
    const replicationControllers = ctx.informers.forResource<ReplicationController>(REPLICATION_CONTROLLERS);
    const reconciler = new DisruptionReconciler({
      client: ctx.client,
      clock: ctx.clock,
      recorder: ctx.eventRecorder('controllermanager'),
      pdbs: pdbs.lister,
      pods: pods.lister,
      replicaSets: replicaSets.lister,
      deployments: deployments.lister,
      statefulSets: statefulSets.lister,
      replicationControllers: replicationControllers.lister,
    });
    const budgetsIn = (namespace: string, selects: (pdb: PodDisruptionBudget) => boolean): string[] =>
      pdbs.lister
        .namespace(namespace)
        .list()
        .filter(selects)
        .map((p) => `${namespace}/${p.metadata?.name ?? ''}`);
    const budgetsOf = (pod: Pod): string[] =>
      budgetsIn(pod.metadata?.namespace ?? '', (pdb) => {
        try {
          return labelSelectorFromObject(pdb.spec?.selector).matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      });
    // a scale change moves expectedPods of every budget in the namespace that counts by controllers
    const budgetsInNamespaceOf = (obj: { metadata?: { namespace?: string } }): string[] => budgetsIn(obj.metadata?.namespace ?? '', () => true);
    const c = newController(ctx, {
      workers: 2,
      reconciler,
    })
      .watches(pdbs, { enqueue: 'self' })
      .watches(pods, { enqueue: budgetsOf })
      .watches(replicaSets, { enqueue: budgetsInNamespaceOf })
      .watches(deployments, { enqueue: budgetsInNamespaceOf })
      .watches(statefulSets, { enqueue: budgetsInNamespaceOf })
      .watches(replicationControllers, { enqueue: budgetsInNamespaceOf });
    await c.run(ctx.signal);
  },
};
