import type { Namespace } from 'kubernetes-types/core/v1.js';
import { Controller } from '../../client/controller/controller.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { instrumentedReconciler } from '../instrumented-reconciler.js';
import { syncErrorLogger } from '../sync-error-logger.js';
import { NAMESPACES, NamespaceReconciler } from './namespace-reconciler.js';

export const controller: ControllerDescriptor = {
  name: 'namespace',
  async start(ctx) {
    const informer = ctx.informers.forResource<Namespace>(NAMESPACES);
    const c = new Controller({
      name: 'namespace',
      workers: 2,
      metrics: ctx.metrics,
      reconciler: instrumentedReconciler('namespace', new NamespaceReconciler({ client: ctx.client, namespaces: informer.lister }), ctx.metrics),
      onError: syncErrorLogger(ctx.logger),
    }).watches(informer, { enqueue: 'self' });
    await c.run(ctx.signal);
  },
};
