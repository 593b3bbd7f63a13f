import type { EndpointAddress, EndpointPort, EndpointSubset, Pod, Service } from 'kubernetes-types/core/v1.js';
import { isPodReady } from '../pod-readiness.js';
import { findPort, PortNotFoundError } from './find-port.js';
import { endpointHostname, podIPv4, shouldPodBeInEndpoints } from './pod-endpoint-eligibility.js';

/** What went wrong for one pod and port: reported, never fatal to the sync. */
export interface PortProblem {
  pod: string;
  error: PortNotFoundError;
}

export function isHeadless(service: Service): boolean {
  return service.spec?.clusterIP === 'None';
}

/** The address of a pod as an endpoint of this service. */
export function podEndpointAddress(pod: Pod, service: Service): EndpointAddress {
  const address: EndpointAddress = {
    ip: podIPv4(pod)!,
    targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid },
  };
  if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
  const hostname = endpointHostname(pod, service.metadata?.name ?? '', service.metadata?.namespace ?? '');
  if (hostname) address.hostname = hostname;
  return address;
}

/**
 * The subsets of a service's Endpoints (upstream's endpoints controller):
 * one single-address subset per pod and service port, ready or not ready
 * (publishNotReadyAddresses makes everyone ready and keeps terminating pods),
 * then repacked into the canonical N-addresses × M-ports form. Ports come
 * from each pod (named targetPorts may differ between pods); a pod lacking a
 * named port is left out for that port only.
 */
export function computeEndpointSubsets(service: Service, pods: readonly Pod[]): { subsets: EndpointSubset[]; problems: PortProblem[] } {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const subsets: EndpointSubset[] = [];
  const problems: PortProblem[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address = podEndpointAddress(pod, service);
    const ready = publishNotReady || isPodReady(pod);
    const add = (ports: EndpointPort[]): void => {
      subsets.push(ready ? { addresses: [address], ports } : { notReadyAddresses: [address], ports });
    };
    const servicePorts = service.spec?.ports ?? [];
    // Headless services without ports still publish addresses (for DNS).
    if (servicePorts.length === 0) {
      if (isHeadless(service)) add([]);
      continue;
    }
    for (const sp of servicePorts) {
      const port = findPort(pod, sp);
      if (port instanceof PortNotFoundError) {
        problems.push({ pod: port.pod, error: port });
        continue;
      }
      const ep: EndpointPort = { port, protocol: sp.protocol ?? 'TCP' };
      if (sp.name) ep.name = sp.name;
      if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
      add([ep]);
    }
  }
  return { subsets: repackSubsets(subsets), problems };
}

function portKey(p: EndpointPort): string {
  return `${p.name ?? ''}/${p.port}/${p.protocol ?? 'TCP'}/${p.appProtocol ?? ''}`;
}

function addressKey(a: EndpointAddress): string {
  return `${a.ip}/${a.targetRef?.uid ?? ''}`;
}

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return compareIPs(a.ip, b.ip) || (a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? '');
}

function compareIPs(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

/**
 * Groups addresses by the exact set of ports they offer, one subset per
 * group (upstream's RepackSubsets). An address listed twice is kept once;
 * if it is not ready for any listing of a port, it is not ready for that
 * port. The output is sorted so equal inputs give equal objects.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const addresses = new Map<string, EndpointAddress>();
  const ports = new Map<string, EndpointPort | undefined>();
  // port key → address key → ready
  const readiness = new Map<string, Map<string, boolean>>();
  const record = (portK: string, addr: EndpointAddress, ready: boolean): void => {
    const k = addressKey(addr);
    if (!addresses.has(k)) addresses.set(k, addr);
    let set = readiness.get(portK);
    if (!set) readiness.set(portK, (set = new Map()));
    const was = set.get(k);
    if (was === undefined || was) set.set(k, ready);
  };
  for (const subset of subsets) {
    // A sentinel keeps port-less (headless) addresses.
    const list: (EndpointPort | undefined)[] = subset.ports?.length ? subset.ports : [undefined];
    for (const p of list) {
      const pk = p ? portKey(p) : '';
      ports.set(pk, p);
      for (const a of subset.addresses ?? []) record(pk, a, true);
      for (const a of subset.notReadyAddresses ?? []) record(pk, a, false);
    }
  }
  // Ports offered by the same addresses (with the same readiness) share a subset.
  const groups = new Map<string, { members: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const [pk, members] of readiness) {
    const key = [...members].map(([a, r]) => `${a}=${r}`).sort().join(',');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { members, ports: [] }));
    const p = ports.get(pk);
    if (p) g.ports.push(p);
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [k, r] of g.members) (r ? ready : notReady).push(addresses.get(k)!);
    const subset: EndpointSubset = {};
    if (ready.length) subset.addresses = ready.sort(compareAddresses);
    if (notReady.length) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (g.ports.length) subset.ports = g.ports.sort((a, b) => portKey(a).localeCompare(portKey(b)));
    out.push(subset);
  }
  const first = (s: EndpointSubset): EndpointAddress => (s.addresses ?? s.notReadyAddresses)![0];
  return out.sort((a, b) => compareAddresses(first(a), first(b)) || (a.ports ?? []).map(portKey).join().localeCompare((b.ports ?? []).map(portKey).join()));
}
