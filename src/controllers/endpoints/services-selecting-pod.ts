import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Lister } from '../../client/cache/lister.js';
import { isPodReady } from '../pod-readiness.js';
import { isPodTerminal } from './pod-endpoint-eligibility.js';

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

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a![k] === b![k]);
}

function sameIPs(a: Pod, b: Pod): boolean {
  if ((a.status?.podIP ?? '') !== (b.status?.podIP ?? '')) return false;
  const x = a.status?.podIPs ?? [];
  const y = b.status?.podIPs ?? [];
  return x.length === y.length && x.every((ip, i) => ip.ip === y[i].ip);
}

/**
 * Upstream's podEndpointsChanged: whether an update can change the pod's
 * endpoint (deletion, readiness, IPs; skiff also drops finished pods, so a
 * change of phase counts) and whether it can change which services select
 * it (labels, hostname, subdomain).
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): { podChanged: boolean; labelsChanged: boolean } {
  const labelsChanged = !sameLabels(oldPod.metadata?.labels, newPod.metadata?.labels) || oldPod.spec?.hostname !== newPod.spec?.hostname || oldPod.spec?.subdomain !== newPod.spec?.subdomain;
  const podChanged =
    // as upstream's pointer comparison: a pod being deleted always counts as changed
    !!(oldPod.metadata?.deletionTimestamp || newPod.metadata?.deletionTimestamp) ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    isPodTerminal(oldPod) !== isPodTerminal(newPod) ||
    !sameIPs(oldPod, newPod);
  return { podChanged, labelsChanged };
}

/**
 * The services to look at after a pod update (upstream's
 * GetServicesToUpdateOnPodChange): none for a resync or a change no endpoint
 * shows (a binding, a status write that keeps readiness and IPs); the
 * selecting services when the endpoint changed; when the labels changed,
 * the services that started or stopped selecting it (all of both when the
 * endpoint changed too).
 */
export function servicesToUpdateOnPodChange(services: Lister<Service>): (oldPod: Pod, newPod: Pod) => string[] {
  const selecting = servicesSelectingPod(services);
  return (oldPod, newPod) => {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return [];
    const { podChanged, labelsChanged } = podEndpointsChanged(oldPod, newPod);
    if (!podChanged && !labelsChanged) return [];
    const now = selecting(newPod);
    if (!labelsChanged) return now;
    const before = selecting(oldPod);
    if (podChanged) return [...new Set([...before, ...now])];
    const a = new Set(before);
    const b = new Set(now);
    return [...before.filter((k) => !b.has(k)), ...now.filter((k) => !a.has(k))];
  };
}
