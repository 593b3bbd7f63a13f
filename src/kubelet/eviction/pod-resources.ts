import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';
import { CONFIG_MIRROR_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from '../static-pods/static-pod-manifest.js';

/** Upstream's SystemCriticalPriority: pods at or above it are never evicted nor refused for pressure. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

function amount(c: Container, resource: string): number {
  const v = c.resources?.requests?.[resource];
  return v === undefined ? 0 : Quantity.parse(String(v)).value();
}

/** A pod's request of a resource (upstream's GetResourceRequestQuantity): the larger of its containers' sum and any one init container, plus overhead. */
export function podRequest(pod: Pod, resource: string): number {
  const spec = pod.spec;
  const containers = (spec?.containers ?? []).reduce((a, c) => a + amount(c, resource), 0);
  const init = Math.max(0, ...(spec?.initContainers ?? []).map((c) => amount(c, resource)));
  const overhead = spec?.overhead?.[resource];
  return Math.max(containers, init) + (overhead === undefined ? 0 : Quantity.parse(String(overhead)).value());
}

export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/** Upstream's IsCriticalPod: static and mirror pods, and pods of system-critical priority. */
export function isCriticalPod(pod: Pod): boolean {
  const a = pod.metadata?.annotations ?? {};
  const source = a[CONFIG_SOURCE_ANNOTATION];
  if (source !== undefined && source !== 'api') return true;
  if (a[CONFIG_MIRROR_ANNOTATION] !== undefined) return true;
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}
