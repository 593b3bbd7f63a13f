import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { splitMetaNamespaceKey } from '../../client/cache/store.js';
import type { Reconciler, ReconcileResult } from '../../client/controller/reconciler.js';
import type { Client } from '../../client/rest/client.js';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../../client/rest/error-predicates.js';
import type { Logger } from '../../machinery/logger.js';
import { semanticEqual } from '../semantic-equal.js';
import { computeEndpointSubsets, isHeadless } from './endpoint-subsets.js';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME, TriggerTimeTracker } from './trigger-time-tracker.js';
import { ENDPOINTS } from '../../api/resource-refs.js';

/** Marks the Endpoints (and slices) of a headless service. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** Upstream's marker for Endpoints that once held more addresses than fit. */
const OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';

/** A stale cache raced our write; look again soon rather than back off. */
const RETRY_SOON_MS = 100;

/** Does this service get endpoints computed from its selector? */
export function hasSelector(service: Service): boolean {
  return service.spec?.type !== 'ExternalName' && Object.keys(service.spec?.selector ?? {}).length > 0;
}

/** Service labels, plus the headless marker for headless services. */
export function endpointsLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  if (isHeadless(service)) labels[HEADLESS_LABEL] = '';
  else delete labels[HEADLESS_LABEL];
  return labels;
}

export interface EndpointsReconcilerOptions {
  client: Client;
  services: Lister<Service>;
  pods: Lister<Pod>;
  endpoints: Lister<Endpoints>;
  logger?: Logger;
}

/**
 * Keeps the `Endpoints` object named after each selector-based Service in
 * step with the pods it selects (upstream's endpoints controller). Services
 * without a selector are left to whoever manages their Endpoints; Endpoints
 * whose Service is gone are deleted.
 */
export class EndpointsReconciler implements Reconciler {
  private readonly triggerTimes = new TriggerTimeTracker();

  constructor(private readonly o: EndpointsReconcilerOptions) {}

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace = '', name } = splitMetaNamespaceKey(key);
    const api = this.o.client.resource<Endpoints>(ENDPOINTS).namespace(namespace);
    const service = this.o.services.namespace(namespace).get(name);
    if (!service) {
      this.triggerTimes.forget(namespace, name);
      if (!this.o.endpoints.namespace(namespace).get(name)) return;
      try {
        await api.delete(name, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
    }
    if (!hasSelector(service)) return;

    const pods = this.o.pods.namespace(namespace).list(service.spec!.selector!);
    const triggerTime = this.triggerTimes.compute(service, pods);
    const { subsets, problems } = computeEndpointSubsets(service, pods);
    for (const p of problems) this.o.logger?.debug('failed to find port for service', { service: key, pod: p.pod, error: p.error });

    const current = this.o.endpoints.namespace(namespace).get(name);
    const labels = endpointsLabels(service);
    if (current && semanticEqual(current.subsets ?? [], subsets) && semanticEqual(current.metadata?.labels ?? {}, labels) && !current.metadata?.annotations?.[OVER_CAPACITY]) return;

    const next: Endpoints = current ? structuredClone(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } };
    next.metadata!.labels = labels;
    const annotations = { ...(next.metadata!.annotations ?? {}) };
    if (triggerTime !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = formatTriggerTime(triggerTime);
    else delete annotations[LAST_CHANGE_TRIGGER_TIME];
    delete annotations[OVER_CAPACITY];
    next.metadata!.annotations = annotations;
    next.subsets = subsets;
    try {
      if (current) await api.update(next, { signal });
      else await api.create(next, { signal });
    } catch (err) {
      // Our cache was behind our own (or someone's) write: retry with the fresh object.
      if (isAlreadyExists(err) || isConflict(err)) return { requeueAfter: RETRY_SOON_MS };
      // The namespace is terminating: nothing to publish into.
      if (!current && (isForbidden(err) || isNotFound(err))) return;
      throw err;
    }
  }
}
