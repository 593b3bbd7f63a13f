import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { Lister } from '../../client/cache/lister.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { controllerRefOf } from '../controller-ref.js';
import { ControllerExpectations } from '../expectations.js';
import { ReplicaSetReconciler } from './replica-set-reconciler.js';
import { PODS, REPLICA_SETS } from '../../api/resource-refs.js';

/** The ReplicaSet key controlling a pod, if a ReplicaSet controls it. */
function owningReplicaSet(pod: Pod): string | undefined {
  const ref = controllerRefOf(pod);
  if (!ref || ref.kind !== 'ReplicaSet' || !ref.apiVersion.startsWith('apps/')) return undefined;
  return `${pod.metadata?.namespace}/${ref.name}`;
}

/** The controlling ReplicaSet of a pod; for an orphan, every ReplicaSet that could adopt it. */
function replicaSetsFor(replicaSets: Lister<ReplicaSet>) {
  return (pod: Pod): string[] => {
    const owner = owningReplicaSet(pod);
    if (owner) return [owner];
    if (controllerRefOf(pod)) return [];
    const ns = pod.metadata?.namespace ?? '';
    return replicaSets
      .namespace(ns)
      .list()
      .filter((rs) => {
        try {
          return labelSelectorFromObject(rs.spec?.selector).matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      })
      .map(metaNamespaceKey);
  };
}

export const controller: ControllerDescriptor = {
  name: 'replicaset',
  async start(ctx) {
    const rsInformer = ctx.informers.forResource<ReplicaSet>(REPLICA_SETS);
    const podInformer = ctx.informers.forResource<Pod>(PODS);
    const expectations = new ControllerExpectations();
    // Lower expectations before the reconcile that the same event triggers.
    podInformer.addEventHandler({
      onAdd: (pod) => {
        const owner = owningReplicaSet(pod);
        if (!owner) return;
        if (pod.metadata?.deletionTimestamp) expectations.deletionObserved(owner, metaNamespaceKey(pod));
        else expectations.creationObserved(owner);
      },
      onUpdate: (oldPod, pod) => {
        const owner = owningReplicaSet(pod);
        if (owner && pod.metadata?.deletionTimestamp && !oldPod.metadata?.deletionTimestamp) expectations.deletionObserved(owner, metaNamespaceKey(pod));
      },
      onDelete: (obj) => {
        const pod = finalState(obj);
        const owner = owningReplicaSet(pod);
        if (owner) expectations.deletionObserved(owner, metaNamespaceKey(pod));
      },
    });
    const reconciler = new ReplicaSetReconciler({
      client: ctx.client,
      replicaSets: rsInformer.lister,
      pods: podInformer.lister,
      expectations,
      recorder: ctx.eventRecorder('replicaset-controller'),
    });
    const c = newController(ctx, {
      workers: 5,
      reconciler,
    })
      .watches(rsInformer, { enqueue: 'self' })
      .watches(podInformer, { enqueue: replicaSetsFor(rsInformer.lister) });
    await c.run(ctx.signal);
  },
};
