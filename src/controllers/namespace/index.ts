import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { NamespaceReconciler } from './namespace-reconciler.js';
import { NAMESPACES } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'namespace',
  async start(ctx) {
    const informer = ctx.informers.forResource<Namespace>(NAMESPACES);
    const c = newController(ctx, {
      workers: 2,
      reconciler: new NamespaceReconciler({ client: ctx.client, namespaces: informer.lister, clock: ctx.clock }),
    }).watches(informer, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
