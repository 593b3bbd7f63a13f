import type { EndpointPort as SlicePort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, fieldColumn } from './columns.js';
import { formatLabels, listWithMore } from './format.js';
import { convertor } from './table-convertor.js';

/** Tables for service discovery: services, endpoints, endpoint slices. */

/** Load balancer ingress points, de-duplicated and sorted; server-side tables are never clipped. */
function loadBalancerAddresses(svc: Service): string[] {
  const set = new Set<string>();
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (ing.ip) set.add(ing.ip);
    else if (ing.hostname) set.add(ing.hostname);
  }
  return [...set].sort();
}

export function serviceExternalIP(svc: Service): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  // API defaulting makes a missing type ClusterIP.
  switch (svc.spec?.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(svc);
      if (externalIPs.length > 0) return [...lb, ...externalIPs].join(',');
      return lb.length > 0 ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return svc.spec?.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** `80/TCP`, or `80:30080/TCP` when a node port is allocated; comma-joined. */
export function servicePorts(svc: Service): string {
  const parts = (svc.spec?.ports ?? []).map((p) => {
    const proto = p.protocol ?? 'TCP';
    return p.nodePort && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${proto}` : `${p.port}/${proto}`;
  });
  return parts.length > 0 ? parts.join(',') : '<none>';
}

export const serviceTable = convertor<Service>(
  [
    NAME_COLUMN,
    fieldColumn('Type', 'string', 'ServiceSpec.type'),
    fieldColumn('Cluster-IP', 'string', 'ServiceSpec.clusterIP'),
    fieldColumn('External-IP', 'string', 'ServiceSpec.externalIPs'),
    fieldColumn('Port(s)', 'string', 'ServiceSpec.ports'),
    AGE_COLUMN,
    fieldColumn('Selector', 'string', 'ServiceSpec.selector', 1),
  ],
  (svc, now) => [
    svc.metadata?.name ?? '',
    svc.spec?.type ?? 'ClusterIP',
    // The internal API fills clusterIPs from clusterIP, so either one counts.
    svc.spec?.clusterIPs?.[0] || svc.spec?.clusterIP || '<none>',
    serviceExternalIP(svc),
    servicePorts(svc),
    translateTimestampSince(svc.metadata?.creationTimestamp, now),
    formatLabels(svc.spec?.selector),
  ],
);

/** Up to three `ip:port` pairs, then `+ N more...`; `<none>` without subsets. */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const all: string[] = [];
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    if (!ss.ports || ss.ports.length === 0) {
      // Headless services may have addresses without ports.
      for (const a of addresses) all.push(a.ip);
      continue;
    }
    for (const port of ss.ports) {
      for (const a of addresses) all.push(joinHostPort(a.ip, port.port));
    }
  }
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export const endpointsTable = convertor<Endpoints>(
  [NAME_COLUMN, fieldColumn('Endpoints', 'string', 'Endpoints.subsets'), AGE_COLUMN],
  (ep, now) => [ep.metadata?.name ?? '', formatEndpoints(ep), translateTimestampSince(ep.metadata?.creationTimestamp, now)],
);

function slicePort(p: SlicePort): string {
  if (p.port !== undefined && p.port !== null) return String(p.port);
  return p.name ?? '*';
}

export const endpointSliceTable = convertor<EndpointSlice>(
  [
    NAME_COLUMN,
    fieldColumn('AddressType', 'string', 'EndpointSlice.addressType'),
    fieldColumn('Ports', 'string', 'EndpointSlice.ports'),
    fieldColumn('Endpoints', 'string', 'EndpointSlice.endpoints'),
    AGE_COLUMN,
  ],
  (es, now) => [
    es.metadata?.name ?? '',
    es.addressType ?? '',
    listWithMore((es.ports ?? []).map(slicePort)),
    listWithMore((es.endpoints ?? []).flatMap((e) => e.addresses ?? [])),
    translateTimestampSince(es.metadata?.creationTimestamp, now),
  ],
);
