import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { canonicalJson } from './canonical-json.js';
import { endpointKey, portSetKey, type PortSet } from './desired-endpoints.js';

/** Upstream's default --max-endpoints-per-slice. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

export interface SlicePlan {
  /** New slices to create, as their contents. */
  create: PortSet[];
  /** Changed copies of existing slices. */
  update: EndpointSlice[];
  /** Existing slices whose endpoints stay as they are. */
  unchanged: EndpointSlice[];
  delete: EndpointSlice[];
}

interface Working {
  original: EndpointSlice;
  endpoints: Endpoint[];
  changed: boolean;
}

/**
 * Turns the existing slices of one service into the desired ones with
 * little churn (in the spirit of upstream's reconciler): endpoints stay in
 * the slice that holds them, gone ones are dropped, new ones first fill
 * slices that change anyway, then slices with room, then new slices of at
 * most `max`. Slices left empty are deleted, except that a service without
 * endpoints keeps one empty placeholder slice.
 */
export function planSlices(existing: readonly EndpointSlice[], desired: ReadonlyMap<string, PortSet>, max = MAX_ENDPOINTS_PER_SLICE): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], unchanged: [], delete: [] };
  const byPortSet = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    const key = portSetKey(slice.ports);
    if (!desired.has(key) || slice.addressType !== 'IPv4') plan.delete.push(slice);
    else byPortSet.set(key, [...(byPortSet.get(key) ?? []), slice]);
  }

  for (const [key, set] of desired) {
    const wanted = new Map(set.endpoints.map((ep) => [endpointKey(ep), ep]));
    const working: Working[] = (byPortSet.get(key) ?? []).map((original) => {
      const endpoints: Endpoint[] = [];
      for (const ep of original.endpoints ?? []) {
        const want = wanted.get(endpointKey(ep));
        if (!want) continue;
        wanted.delete(endpointKey(ep));
        endpoints.push(want);
      }
      const changed = canonicalJson(endpoints) !== canonicalJson(original.endpoints ?? []);
      return { original, endpoints, changed };
    });
    const remaining = [...wanted.values()];
    // Fill slices being rewritten anyway, then the fullest slices that have room.
    const fillOrder = [...working.filter((w) => w.changed), ...working.filter((w) => !w.changed).sort((a, b) => b.endpoints.length - a.endpoints.length)];
    for (const w of fillOrder) {
      if (remaining.length === 0) break;
      const room = max - w.endpoints.length;
      if (room <= 0) continue;
      w.endpoints.push(...remaining.splice(0, room));
      w.changed = true;
    }
    for (let i = 0; i < remaining.length; i += max) plan.create.push({ ports: set.ports, endpoints: remaining.slice(i, i + max) });
    for (const w of working) {
      if (w.endpoints.length === 0) plan.delete.push(w.original);
      else if (w.changed) plan.update.push({ ...w.original, endpoints: w.endpoints, ports: set.ports as EndpointPort[] });
      else plan.unchanged.push(w.original);
    }
  }

  if (desired.size === 0) placeholder(plan);
  return plan;
}

/** Keeps (or makes) exactly one empty slice, so the service still shows up. */
function placeholder(plan: SlicePlan): void {
  const isPlaceholder = (s: EndpointSlice): boolean => s.addressType === 'IPv4' && !s.endpoints?.length && !s.ports?.length;
  const keep = plan.delete.find(isPlaceholder) ?? plan.delete.find((s) => s.addressType === 'IPv4');
  if (!keep) {
    plan.create.push({ ports: [], endpoints: [] });
    return;
  }
  plan.delete = plan.delete.filter((s) => s !== keep);
  if (isPlaceholder(keep)) plan.unchanged.push(keep);
  else plan.update.push({ ...keep, endpoints: [], ports: [] });
}
