import type { Node } from 'kubernetes-types/core/v1.js';
import { controllerConfig, type ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { CidrSet } from './cidr-set.js';
import { RangeAllocator } from './range-allocator.js';
import { NODES } from '../../api/resource-refs.js';

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
    const c = newController(ctx, {
      queue: 'node_ipam',
      // one worker: allocations and releases happen in order
      workers: 1,
      reconciler: allocator,
    }).watches(nodes, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
