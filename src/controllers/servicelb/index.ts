import type { Node, Service } from 'kubernetes-types/core/v1.js';
import { NODES, SERVICES } from '../../api/resource-refs.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { ServiceLBReconciler } from './service-lb-reconciler.js';

/** k3s's ServiceLB (`--disable servicelb` there; `--controllers=-servicelb` here): LoadBalancer Services get the nodes' addresses. */
export const controller: ControllerDescriptor = {
  name: 'servicelb',
  async start(ctx) {
    const services = ctx.informers.forResource<Service>(SERVICES);
    const nodes = ctx.informers.forResource<Node>(NODES);
    const reconciler = new ServiceLBReconciler({ client: ctx.client, services: services.lister, nodes: nodes.lister });
    const key = (s: Service) => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;
    const c = newController(ctx, { workers: 1, reconciler })
      .watches(services, { enqueue: 'self' })
      // a node's address or readiness changes every LoadBalancer Service's ingress
      .watches(nodes, { enqueue: () => services.lister.list().filter((s) => s.spec?.type === 'LoadBalancer').map(key) });
    await c.run(ctx.signal);
  },
};
