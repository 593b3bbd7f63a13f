import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';

/** True when the service has a non-empty selector and the labels satisfy it. */
export function serviceSelects(service: Service, labels: Readonly<Record<string, string>>): boolean {
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/**
 * Maps a pod to the keys of the services in its namespace that select it.
 * Service selectors are plain equality maps, so no parsing is needed.
 */
export function servicesSelectingPod(services: Lister<Service>): (pod: Pod) => string[] {
  return (pod) => {
    const ns = pod.metadata?.namespace ?? '';
    const labels = pod.metadata?.labels ?? {};
    return services
      .namespace(ns)
      .list()
      .filter((svc) => serviceSelects(svc, labels))
      .map((svc) => `${ns}/${svc.metadata?.name ?? ''}`);
  };
}
