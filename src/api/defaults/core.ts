import type { Endpoints, LimitRange, Namespace, Node, Secret } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';

/**
 * SetDefaults_Namespace plus the namespace strategy's create-time finalizer:
 * the finalizer is only added when spec.finalizers is absent, so an emptied
 * list (after finalization) stays empty.
 */
export function setNamespaceDefaults(ns: Namespace): void {
  const meta = (ns.metadata ??= {});
  if (meta.name) meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
  const spec = (ns.spec ??= {});
  spec.finalizers ??= ['kubernetes'];
  const status = (ns.status ??= {});
  status.phase ||= 'Active';
}

/** SetDefaults_NodeStatus: allocatable defaults to capacity. */
export function setNodeDefaults(node: Node): void {
  const status = node.status;
  if (status?.capacity && !status.allocatable) status.allocatable = { ...status.capacity };
}

/**
 * SetDefaults_Secret, plus folding stringData into data (upstream does this
 * while converting from v1, so validation and storage only ever see data).
 */
export function setSecretDefaults(secret: Secret): void {
  secret.type ||= 'Opaque';
  if (secret.stringData) {
    const data = (secret.data ??= {});
    for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    delete secret.stringData;
  }
}

export function setEndpointsDefaults(ep: Endpoints): void {
  for (const ss of ep.subsets ?? []) for (const port of ss.ports ?? []) port.protocol ||= 'TCP';
}

/** SetDefaults_LimitRangeItem: container defaults fill from max, requests from defaults, then from min. */
export function setLimitRangeDefaults(lr: LimitRange): void {
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    const def = (item.default ??= {});
    const req = (item.defaultRequest ??= {});
    for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in req)) req[k] = v;
  }
}

export function setEndpointSliceDefaults(slice: EndpointSlice): void {
  for (const port of slice.ports ?? []) {
    port.name ??= '';
    port.protocol ??= 'TCP';
  }
}

export function setPriorityClassDefaults(pc: PriorityClass): void {
  pc.preemptionPolicy ??= 'PreemptLowerPriority';
}
