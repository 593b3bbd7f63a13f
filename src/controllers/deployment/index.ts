import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { Lister } from '../../client/cache/lister.js';
import { labelSelectorFromObject } from '../../machinery/labels/index.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { controllerRefOf } from '../controller-ref.js';
import { DeploymentReconciler } from './deployment-reconciler.js';
import { DEPLOYMENTS, PODS, REPLICA_SETS } from '../../api/resource-refs.js';

/** The controlling Deployment of a ReplicaSet; for an orphan, every Deployment that could adopt it. */
function deploymentsFor(deployments: Lister<Deployment>) {
  return (rs: ReplicaSet): string[] => {
    const ref = controllerRefOf(rs);
    const ns = rs.metadata?.namespace ?? '';
    if (ref) return ref.kind === 'Deployment' && ref.apiVersion.startsWith('apps/') ? [`${ns}/${ref.name}`] : [];
    return deployments
      .namespace(ns)
      .list()
      .filter((d) => {
        try {
          const sel = labelSelectorFromObject(d.spec?.selector);
          return !sel.empty() && sel.matches(rs.metadata?.labels ?? {});
        } catch {
          return false;
        }
      })
      .map(metaNamespaceKey);
  };
}

export const controller: ControllerDescriptor = {
  name: 'deployment',
  async start(ctx) {
    const deployInformer = ctx.informers.forResource<Deployment>(DEPLOYMENTS);
    const rsInformer = ctx.informers.forResource<ReplicaSet>(REPLICA_SETS);
    const podInformer = ctx.informers.forResource<Pod>(PODS);
    const reconciler = new DeploymentReconciler({
      client: ctx.client,
      clock: ctx.clock,
      deployments: deployInformer.lister,
      replicaSets: rsInformer.lister,
      pods: podInformer.lister,
      recorder: ctx.eventRecorder('deployment-controller'),
    });
    const c = newController(ctx, {
      workers: 5,
      reconciler,
    })
      .watches(deployInformer, { enqueue: 'self' })
      .watches(rsInformer, { enqueue: deploymentsFor(deployInformer.lister) });
    // A Recreate rollout waits for the last old pod to go (upstream's deletePod handler).
    podInformer.addEventHandler({
      onDelete: (obj) => {
        const pod = finalState(obj);
        const ref = controllerRefOf(pod);
        if (ref?.kind !== 'ReplicaSet') return;
        const rs = rsInformer.lister.namespace(pod.metadata?.namespace ?? '').get(ref.name);
        const d = rs ? controllerRefOf(rs) : undefined;
        if (d?.kind !== 'Deployment') return;
        const deployment = deployInformer.lister.namespace(pod.metadata?.namespace ?? '').get(d.name);
        if (deployment?.spec?.strategy?.type === 'Recreate') c.queue.add(metaNamespaceKey(deployment));
      },
    });
    await c.run(ctx.signal);
  },
};
