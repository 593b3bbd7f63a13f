import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { TaintEvictionReconciler } from './taint-eviction-reconciler.js';
import { NODES, PODS } from '../../api/resource-refs.js';

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
      .watches(pods, { enqueue: 'self' })
      .watches(nodes, { enqueue: (node) => ((node.spec?.taints ?? []).some((t) => t.effect === 'NoExecute') ? podKeysOn(node) : []) });
    await c.run(ctx.signal);
  },
};
