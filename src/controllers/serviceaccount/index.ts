import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { DEFAULT_SERVICE_ACCOUNT, ServiceAccountReconciler } from './serviceaccount-reconciler.js';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'serviceaccount',
  async start(ctx) {
    const namespaces = ctx.informers.forResource<Namespace>(NAMESPACES);
    const serviceAccounts = ctx.informers.forResource<ServiceAccount>(SERVICE_ACCOUNTS);
    const reconciler = new ServiceAccountReconciler({ client: ctx.client, namespaces: namespaces.lister, serviceAccounts: serviceAccounts.lister });
    const c = newController(ctx, {
      workers: 1,
      reconciler,
    })
      .watches(namespaces, { enqueue: 'self' })
      // a deleted default account comes back
      .watches(serviceAccounts, { enqueue: (sa) => (sa.metadata?.name === DEFAULT_SERVICE_ACCOUNT ? [sa.metadata?.namespace ?? ''] : []) });
    await c.run(ctx.signal);
  },
};
