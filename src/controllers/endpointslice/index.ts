import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { ControllerDescriptor } from '../controller-descriptor.js';
import { newController } from '../new-controller.js';
import { servicesSelectingPod, servicesToUpdateOnPodChange } from '../endpoints/services-selecting-pod.js';
import { CONTROLLER_NAME, EndpointSliceReconciler, MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './endpoint-slice-reconciler.js';
import { ENDPOINT_SLICES, PODS, SERVICES } from '../../api/resource-refs.js';

/** A slice maps to the service it is labelled for, if this controller manages it. */
function serviceOfSlice(slice: EndpointSlice): string[] {
  const labels = slice.metadata?.labels ?? {};
  const service = labels[SERVICE_NAME_LABEL];
  if (!service || labels[MANAGED_BY_LABEL] !== CONTROLLER_NAME) return [];
  return [`${slice.metadata?.namespace ?? ''}/${service}`];
}

export const controller: ControllerDescriptor = {
  name: 'endpointslice',
  async start(ctx) {
    const services = ctx.informers.forResource<Service>(SERVICES);
    const pods = ctx.informers.forResource<Pod>(PODS);
    const slices = ctx.informers.forResource<EndpointSlice>(ENDPOINT_SLICES);
    const reconciler = new EndpointSliceReconciler({ client: ctx.client, clock: ctx.clock, services: services.lister, pods: pods.lister, slices: slices.lister });
    const c = newController(ctx, {
      queue: 'endpoint_slice',
      workers: 2,
      reconciler,
    })
      .watches(services, { enqueue: 'self' })
      .watches(pods, { enqueue: servicesSelectingPod(services.lister), onUpdate: servicesToUpdateOnPodChange(services.lister) })
      // Changes by others (or deletes) are repaired; our own writes are cheap no-ops.
      .watches(slices, { enqueue: serviceOfSlice });
    await c.run(ctx.signal);
  },
};
