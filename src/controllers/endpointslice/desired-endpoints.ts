import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointPort } from 'kubernetes-types/discovery/v1.js';
import { isPodReady } from '../pod-readiness.js';
import { findPort, PortNotFoundError } from '../endpoints/find-port.js';
import { endpointHostname, podIPv4, shouldPodBeInEndpoints } from '../endpoints/pod-endpoint-eligibility.js';

/** Endpoints that offer the same ports; one or more slices hold them. */
export interface PortSet {
  ports: EndpointPort[];
  endpoints: Endpoint[];
}

export function portKey(p: EndpointPort): string {
  return `${p.name ?? ''}/${p.port ?? ''}/${p.protocol ?? 'TCP'}/${p.appProtocol ?? ''}`;
}

/** Order-insensitive identity of a slice's port list. */
export function portSetKey(ports: readonly EndpointPort[] | undefined): string {
  return (ports ?? []).map(portKey).sort().join(',');
}

/** An endpoint's identity across syncs: its pod, else its address. */
export function endpointKey(ep: Endpoint): string {
  return ep.targetRef?.uid ? `uid:${ep.targetRef.uid}` : `ip:${ep.addresses.join(',')}`;
}

/**
 * A pod as a slice endpoint. Terminating pods stay (so proxies can drain
 * them) but are never ready unless the service publishes not-ready addresses.
 */
export function podToEndpoint(pod: Pod, service: Service): Endpoint {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const serving = publishNotReady || isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  const ep: Endpoint = {
    addresses: [podIPv4(pod)!],
    conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid },
  };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const hostname = endpointHostname(pod, service.metadata?.name ?? '', service.metadata?.namespace ?? '');
  if (hostname) ep.hostname = hostname;
  return ep;
}

/** The ports this pod offers for the service; ports it cannot resolve are left out. */
export function podEndpointPorts(pod: Pod, service: Service): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of service.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port instanceof PortNotFoundError) continue;
    const ep: EndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

/**
 * The endpoints a service should have, grouped by the ports they offer
 * (named targetPorts can resolve differently per pod, and a slice has one
 * port list). Sorted, so equal inputs give equal slices.
 */
export function desiredEndpoints(service: Service, pods: readonly Pod[]): Map<string, PortSet> {
  const sets = new Map<string, PortSet>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = podEndpointPorts(pod, service).sort((a, b) => portKey(a).localeCompare(portKey(b)));
    const key = portSetKey(ports);
    let set = sets.get(key);
    if (!set) sets.set(key, (set = { ports, endpoints: [] }));
    set.endpoints.push(podToEndpoint(pod, service));
  }
  for (const set of sets.values()) set.endpoints.sort((a, b) => endpointKey(a).localeCompare(endpointKey(b)));
  return sets;
}
