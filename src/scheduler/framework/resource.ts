import type { Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { Quantity } from '../../machinery/quantity.js';

/** Amounts the scheduler accounts for: cpu in millicores, the rest in whole units. */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  /** Extended resources and hugepages, by resource name. */
  scalar: Map<string, number>;
}

/** Requests a container with none still counts for when spreading by score (upstream's non-zero defaults). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function emptyResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: new Map() };
}

export function cloneResource(r: Resource): Resource {
  return { ...r, scalar: new Map(r.scalar) };
}

const quantityCache = new Map<string, number>();

function amount(name: string, raw: string | number): number {
  const key = `${name === 'cpu' ? 'm' : ''}${raw}`;
  let v = quantityCache.get(key);
  if (v === undefined) {
    const q = Quantity.parse(String(raw));
    v = name === 'cpu' ? q.milliValue() : q.value();
    if (quantityCache.size < 10_000) quantityCache.set(key, v);
  }
  return v;
}

/** Whether a resource name is one the scheduler tracks as a scalar (extended, hugepages, attachable volumes). */
export function isScalarResourceName(name: string): boolean {
  return name.startsWith('hugepages-') || name.startsWith('attachable-volumes-') || (name.includes('/') && !name.startsWith('kubernetes.io/'));
}

/** Adds a ResourceList (requests, allocatable, overhead) into `r`. */
export function addResourceList(r: Resource, list: Record<string, string | number> | undefined): void {
  if (!list) return;
  for (const [name, raw] of Object.entries(list)) {
    switch (name) {
      case 'cpu':
        r.milliCPU += amount(name, raw);
        break;
      case 'memory':
        r.memory += amount(name, raw);
        break;
      case 'ephemeral-storage':
        r.ephemeralStorage += amount(name, raw);
        break;
      case 'pods':
        r.allowedPodNumber += amount(name, raw);
        break;
      default:
        if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + amount(name, raw));
    }
  }
}

export function addResource(into: Resource, r: Resource, sign = 1): void {
  into.milliCPU += sign * r.milliCPU;
  into.memory += sign * r.memory;
  into.ephemeralStorage += sign * r.ephemeralStorage;
  into.allowedPodNumber += sign * r.allowedPodNumber;
  for (const [k, v] of r.scalar) into.scalar.set(k, (into.scalar.get(k) ?? 0) + sign * v);
}

function maxInto(into: Resource, r: Resource): void {
  into.milliCPU = Math.max(into.milliCPU, r.milliCPU);
  into.memory = Math.max(into.memory, r.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, r.ephemeralStorage);
  for (const [k, v] of r.scalar) into.scalar.set(k, Math.max(into.scalar.get(k) ?? 0, v));
}

function requestsOf(res: ResourceRequirements | undefined, nonZero: boolean): Resource {
  const r = emptyResource();
  addResourceList(r, res?.requests as Record<string, string> | undefined);
  if (nonZero) {
    if (!res?.requests || !('cpu' in res.requests)) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (!res?.requests || !('memory' in res.requests)) r.memory = DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/**
 * A pod's effective request: the sum over app containers (and restartable
 * init "sidecars"), or the largest init container if more, plus overhead.
 * With `nonZero`, containers without cpu/memory requests count the defaults.
 */
export function computePodRequests(pod: Pod, nonZero = false): Resource {
  const spec = pod.spec;
  const total = emptyResource();
  for (const c of spec?.containers ?? []) addResource(total, requestsOf(c.resources, nonZero));
  const sidecars = emptyResource();
  for (const c of spec?.initContainers ?? []) {
    const req = requestsOf(c.resources, nonZero);
    if (c.restartPolicy === 'Always') {
      addResource(sidecars, req);
      addResource(total, req);
      continue;
    }
    // A regular init container runs alone next to the sidecars started before it.
    const during = cloneResource(req);
    addResource(during, sidecars);
    maxInto(total, during);
  }
  addResourceList(total, spec?.overhead as Record<string, string> | undefined);
  return total;
}
