import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseApiVersion } from '../../api/object.js';
import { PODS } from '../../api/resource-refs.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import type { Lister } from '../../client/cache/lister.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { controllerRefOf } from '../controller-ref.js';
import { ControllerExpectations } from '../expectations.js';
import { newController } from '../new-controller.js';
import { ReplicaSetReconciler } from './replica-set-reconciler.js';
import type { Replicated, ReplicatedKind } from './replicated-kind.js';

/** The key of the owner of `kind` controlling a pod, if one does. */
function owningKey(kind: ReplicatedKind<Replicated>, pod: Pod): string | undefined {
  const ref = controllerRefOf(pod);
  if (!ref || ref.kind !== kind.kind || parseApiVersion(ref.apiVersion).group !== kind.resource.group) return undefined;
  return `${pod.metadata?.namespace}/${ref.name}`;
}

/** The controlling owner of a pod; for an orphan, every owner of `kind` that could adopt it. */
function ownersFor<T extends Replicated>(kind: ReplicatedKind<T>, owners: Lister<T>) {
  return (pod: Pod): string[] => {
    const owner = owningKey(kind as ReplicatedKind<Replicated>, pod);
    if (owner) return [owner];
    if (controllerRefOf(pod)) return [];
    return owners
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((o) => {
        try {
          return kind.selector(o).matches(pod.metadata?.labels ?? {});
        } catch {
          return false;
        }
      })
      .map(metaNamespaceKey);
  };
}

/**
 * The replica controller for one kind: ReplicaSets, or ReplicationControllers
 * (upstream's replication manager is its ReplicaSet controller over RCs).
 */
export function replicatedController<T extends Replicated>(kind: ReplicatedKind<T>): ControllerDescriptor {
  return {
    name: kind.name,
    async start(ctx) {
      const ownerInformer = ctx.informers.forResource<T>(kind.resource);
      const podInformer = ctx.informers.forResource<Pod>(PODS);
      const expectations = new ControllerExpectations(ctx.clock);
      const owning = (pod: Pod) => owningKey(kind as ReplicatedKind<Replicated>, pod);
      // Lower expectations before the reconcile that the same event triggers.
      podInformer.addEventHandler({
        onAdd: (pod) => {
          const owner = owning(pod);
          if (!owner) return;
          if (pod.metadata?.deletionTimestamp) expectations.deletionObserved(owner, metaNamespaceKey(pod));
          else expectations.creationObserved(owner);
        },
        onUpdate: (oldPod, pod) => {
          const owner = owning(pod);
          if (owner && pod.metadata?.deletionTimestamp && !oldPod.metadata?.deletionTimestamp) expectations.deletionObserved(owner, metaNamespaceKey(pod));
        },
        onDelete: (obj) => {
          const pod = finalState(obj);
          const owner = owning(pod);
          if (owner) expectations.deletionObserved(owner, metaNamespaceKey(pod));
        },
      });
      const reconciler = new ReplicaSetReconciler<T>({
        kind,
        client: ctx.client,
        clock: ctx.clock,
        owners: ownerInformer.lister,
        pods: podInformer.lister,
        expectations,
        recorder: ctx.eventRecorder(kind.component),
      });
      const c = newController(ctx, { workers: 5, reconciler })
        .watches(ownerInformer, { enqueue: 'self' })
        .watches(podInformer, { enqueue: ownersFor(kind, ownerInformer.lister) });
      await c.run(ctx.signal);
    },
  };
}
