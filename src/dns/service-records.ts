import { isIPv6 } from 'node:net';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

/** A Service port as DNS sees it: SRV records exist for named ports. */
export interface RecordPort {
  name: string;
  /** `tcp`, `udp` or `sctp`, lower case as in `_http._tcp`. */
  protocol: string;
  port: number;
}

/** One ready endpoint address of a Service. */
export interface RecordEndpoint {
  ip: string;
  /**
   * The endpoint's hostname (a StatefulSet pod's `web-0`), else the
   * specification's "unique, system-assigned identifier": the IP with dashes,
   * as CoreDNS names it (`10-244-0-5`).
   */
  hostname: string;
  /** Whether the hostname came from the endpoint (gets a PTR record). */
  explicitHostname: boolean;
  /** Port numbers by port name (endpoint ports may differ from Service ports). */
  ports: RecordPort[];
}

/** What DNS answers for one Service (`<name>.<namespace>.svc.<zone>`). */
export interface ServiceRecord {
  name: string;
  namespace: string;
  kind: 'ClusterIP' | 'Headless' | 'ExternalName';
  /** ClusterIP Services: their cluster IPs (IPv4 and/or IPv6). */
  clusterIPs: string[];
  /** ExternalName Services: the CNAME target. */
  externalName?: string;
  ports: RecordPort[];
  /** Headless Services: ready endpoints (deduplicated by IP). */
  endpoints: RecordEndpoint[];
}

/** `10.0.0.1` → `10-0-0-1`, `fd00::1` → `fd00--1`: an IP as one DNS label. */
export function dashedIP(ip: string): string {
  return ip.replace(/[.:]/g, '-');
}

function isHeadless(svc: Service): boolean {
  return svc.spec?.clusterIP === 'None';
}

function clusterIPsOf(svc: Service): string[] {
  const ips = svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : svc.spec?.clusterIP ? [svc.spec.clusterIP] : [];
  return ips.filter((ip) => ip !== '' && ip !== 'None');
}

/**
 * A Service's records from the Service and its EndpointSlices. An endpoint
 * counts when ready (a missing condition means ready), or when the Service
 * publishes not-ready addresses, as the specification says.
 */
export function serviceRecord(svc: Service, slices: readonly EndpointSlice[]): ServiceRecord {
  const name = svc.metadata?.name ?? '';
  const namespace = svc.metadata?.namespace ?? '';
  const ports: RecordPort[] = (svc.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: (p.protocol ?? 'TCP').toLowerCase(), port: p.port }));
  if (svc.spec?.type === 'ExternalName') {
    return { name, namespace, kind: 'ExternalName', clusterIPs: [], externalName: (svc.spec.externalName ?? '').replace(/\.$/, '').toLowerCase(), ports, endpoints: [] };
  }
  if (!isHeadless(svc)) return { name, namespace, kind: 'ClusterIP', clusterIPs: clusterIPsOf(svc), ports, endpoints: [] };
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const seen = new Set<string>();
  const endpoints: RecordEndpoint[] = [];
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    const slicePorts: RecordPort[] = (slice.ports ?? []).filter((p) => p.port !== undefined).map((p) => ({ name: p.name ?? '', protocol: (p.protocol ?? 'TCP').toLowerCase(), port: p.port! }));
    for (const ep of slice.endpoints ?? []) {
      if (!publishNotReady && ep.conditions?.ready === false) continue;
      for (const ip of ep.addresses ?? []) {
        if (seen.has(ip)) continue;
        seen.add(ip);
        const explicit = Boolean(ep.hostname);
        endpoints.push({ ip, hostname: (ep.hostname ?? dashedIP(ip)).toLowerCase(), explicitHostname: explicit, ports: slicePorts });
      }
    }
  }
  endpoints.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  return { name, namespace, kind: 'Headless', clusterIPs: [], ports, endpoints };
}

/** The IP family of an address as a record type. */
export function addressType(ip: string): 'A' | 'AAAA' {
  return isIPv6(ip) ? 'AAAA' : 'A';
}
