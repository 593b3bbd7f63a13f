import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import { TaintEvictionReconciler } from './taint-eviction-reconciler.js';
import { NODES, PODS } from '../../api/resource-refs.js';

/** A node's NoExecute taints in a comparable form. */
function noExecuteTaints(node: Node): string {
  return JSON.stringify((node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute'));
}

function podEvictionChanged(oldPod: Pod, newPod: Pod): boolean {
  if (oldPod.spec?.nodeName !== newPod.spec?.nodeName) return true;
  const a = oldPod.spec?.tolerations;
  const b = newPod.spec?.tolerations;
  return a !== b && JSON.stringify(a ?? []) !== JSON.stringify(b ?? []);
}

export const controller: ControllerDescriptor = {
  name: 'taint-eviction-controller',
  async start(ctx) {
    const pods = ctx.informers.forResource<Pod>(PODS);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const reconciler = new TaintEvictionReconciler({ client: ctx.client, clock: ctx.clock, pods: pods.lister, nodes: nodes.lister, recorder: ctx.eventRecorder('taint-eviction-controller') });
    const podKeysOn = (node: Node): string[] =>
      pods.lister
        .list()
        .filter((p) => p.spec?.nodeName === node.metadata?.name)
        .map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
    const c = newController(ctx, {
      queue: 'taint_eviction_controller',
      workers: 4,
      reconciler,
    })
      // as upstream's PodUpdated: only a pod's node and tolerations matter to the eviction
      .watches(pods, { enqueue: 'self', onUpdate: (oldPod, newPod) => (podEvictionChanged(oldPod, newPod) ? [metaNamespaceKey(newPod)] : []) })
      // as upstream's NodeUpdated: only a change of NoExecute taints (added or removed) calls for a look at the node's pods
      .watches(nodes, {
        enqueue: (node) => (noExecuteTaints(node) !== '[]' ? podKeysOn(node) : []),
        onUpdate: (oldNode, newNode) => (noExecuteTaints(oldNode) !== noExecuteTaints(newNode) ? podKeysOn(newNode) : []),
      });
    await c.run(ctx.signal);
  },
};
