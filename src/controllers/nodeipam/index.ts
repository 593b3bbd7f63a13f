import type { Node } from 'kubernetes-types/core/v1.js';
import { Controller } from '../../client/controller/controller.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { CidrSet } from './cidr-set.js';
import { NODES, RangeAllocator } from './range-allocator.js';

export const controller: ControllerDescriptor = {
  name: 'nodeipam',
  async start(ctx) {
    const config = controllerConfig(ctx);
    if (!config.allocateNodeCidrs) return;
    const nodes = ctx.informers.forResource<Node>(NODES);
    const allocator = new RangeAllocator({
      client: ctx.client,
      nodes: nodes.lister,
      cidrs: new CidrSet(config.clusterCidr, config.nodeCidrMaskSize),
      recorder: ctx.eventRecorder('cidrAllocator'),
      logger: ctx.logger,
    });
    const c = new Controller({
      name: 'node_ipam',
      // one worker: allocations and releases happen in order
      workers: 1,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('nodeipam', allocator, ctx.metrics),
      onError: (key, err) => ctx.logger.warn('assigning a node pod CIDR failed', { node: key, error: err instanceof Error ? err.message : String(err) }),
    }).watches(nodes, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
