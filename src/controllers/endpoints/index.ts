import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { finalState } from '../../client/cache/deleted-final-state-unknown.js';
import { metaNamespaceKey } from '../../client/cache/store.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { EndpointsReconciler } from './endpoints-reconciler.js';
import { servicesSelectingPod, servicesToUpdateOnPodChange } from './services-selecting-pod.js';
import { ENDPOINTS, PODS, SERVICES } from '../../api/resource-refs.js';

export const controller: ControllerDescriptor = {
  name: 'endpoint',
  async start(ctx) {
    const services = ctx.informers.forResource<Service>(SERVICES);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const endpoints = ctx.informers.forResource<Endpoints>(ENDPOINTS);
    const reconciler = new EndpointsReconciler({ client: ctx.client, services: services.lister, pods: pods.lister, endpoints: endpoints.lister, logger: ctx.logger });
    const c = newController(ctx, {
      workers: 2,
      reconciler,
    })
      .watches(services, { enqueue: 'self' })
      .watches(pods, { enqueue: servicesSelectingPod(services.lister), onUpdate: servicesToUpdateOnPodChange(services.lister) })
      // Only to wait for its cache: our own writes need no look.
      .watches(endpoints, { enqueue: () => [] });
    // Endpoints found at start-up may belong to services deleted while we were
    // down; a deleted Endpoints of a live service must come back.
    endpoints.addEventHandler({
      onAdd: (ep, initial) => {
        if (initial) c.queue.add(metaNamespaceKey(ep));
      },
      onDelete: (ep) => c.queue.add(metaNamespaceKey(finalState(ep))),
    });
    await c.run(ctx.signal);
  },
};
