import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../../client/rest/error-predicates.js';
import { endpointsLabels, hasSelector } from '../endpoints/endpoints-reconciler.js';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME, TriggerTimeTracker } from '../endpoints/trigger-time-tracker.js';
import { canonicalJson } from './canonical-json.js';
import { desiredEndpoints, type PortSet } from './desired-endpoints.js';
import { MAX_ENDPOINTS_PER_SLICE, planSlices } from './slice-plan.js';
import { SliceExpectations } from './slice-expectations.js';
import { ENDPOINT_SLICES } from '../../api/resource-refs.js';
import type { Clock } from '../../base/clock.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

const RETRY_SOON_MS = 100;

export interface EndpointSliceReconcilerOptions {
  client: Client;
  services: Lister<Service>;
  pods: Lister<Pod>;
  slices: Lister<EndpointSlice>;
  maxEndpointsPerSlice?: number;
  /** Where time comes from (default: the real clock). */
  clock?: Clock;
}

/** Slice labels: the service's (minus ours), then ours. */
function sliceLabels(service: Service): Record<string, string> {
  const labels = endpointsLabels(service);
  delete labels[SERVICE_NAME_LABEL];
  delete labels[MANAGED_BY_LABEL];
  return { ...labels, [SERVICE_NAME_LABEL]: service.metadata?.name ?? '', [MANAGED_BY_LABEL]: CONTROLLER_NAME };
}

function ownerReference(service: Service) {
  return { apiVersion: 'v1', kind: 'Service', name: service.metadata?.name ?? '', uid: service.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/**
 * Maintains the `discovery.k8s.io/v1` EndpointSlices of each selector-based
 * Service (upstream's endpointslice controller): IPv4 slices of at most
 * `maxEndpointsPerSlice` endpoints, one port list per slice, labelled with
 * the service name and this controller, owned by the Service.
 */
export class EndpointSliceReconciler implements Reconciler {
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly expectations: SliceExpectations;

  constructor(private readonly o: EndpointSliceReconcilerOptions) {
    this.expectations = new SliceExpectations(undefined, o.clock);
  }

  /** The slices this controller manages for a service (by label). */
  managedSlices(namespace: string, name: string): EndpointSlice[] {
    return this.o.slices.namespace(namespace).list({ [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: CONTROLLER_NAME });
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const cached = (n: string): EndpointSlice | undefined => this.o.slices.namespace(namespace).get(n);
    if (!this.expectations.satisfied(key, cached)) return { requeueAfter: RETRY_SOON_MS };
    const api = this.o.client.resource<EndpointSlice>(ENDPOINT_SLICES).namespace(namespace);
    const service = this.o.services.namespace(namespace).get(name);
    const existing = this.managedSlices(namespace, name);

    const deleteSlice = async (slice: EndpointSlice): Promise<void> => {
      const sliceName = slice.metadata?.name ?? '';
      try {
        await api.delete(sliceName, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.expectations.expectDeleted(key, sliceName);
    };

    // Gone, or no longer selector-based: its slices go (the garbage collector would too).
    if (!service || !hasSelector(service)) {
      if (!service) this.triggerTimes.forget(namespace, name);
      for (const slice of existing) await deleteSlice(slice);
      return;
    }

    const pods = this.o.pods.namespace(namespace).list(service.spec!.selector!);
    const triggerTime = this.triggerTimes.compute(service, pods);
    // Slices of an earlier service of the same name are not ours to reuse.
    const owned = existing.filter((s) => s.metadata?.ownerReferences?.some((r) => r.kind === 'Service' && r.uid === service.metadata?.uid));
    const plan = planSlices(owned, desiredEndpoints(service, pods), this.o.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE);
    plan.delete.push(...existing.filter((s) => !owned.includes(s)));

    const labels = sliceLabels(service);
    const withMeta = (slice: EndpointSlice): EndpointSlice => {
      const annotations = { ...(slice.metadata?.annotations ?? {}) };
      if (triggerTime !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = formatTriggerTime(triggerTime);
      return { ...slice, metadata: { ...slice.metadata, labels, annotations } };
    };
    // Slices whose endpoints are fine may still carry outdated labels.
    const relabel = plan.unchanged.filter((s) => canonicalJson(s.metadata?.labels ?? {}) !== canonicalJson(labels));

    try {
      for (const slice of plan.delete) await deleteSlice(slice);
      for (const slice of [...plan.update, ...relabel]) {
        this.expectations.expectWritten(key, await api.update(withMeta(structuredClone(slice)), { signal }));
      }
      for (const set of plan.create) {
        this.expectations.expectWritten(key, await api.create(withMeta(this.newSlice(service, set)), { signal }));
      }
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return { requeueAfter: RETRY_SOON_MS };
      // The namespace is terminating.
      if (isForbidden(err)) return;
      throw err;
    }
  }

  private newSlice(service: Service, set: PortSet): EndpointSlice {
    return {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { generateName: `${service.metadata?.name ?? ''}-`, namespace: service.metadata?.namespace, ownerReferences: [ownerReference(service)] },
      addressType: 'IPv4',
      endpoints: set.endpoints,
      ports: set.ports,
    };
  }
}
