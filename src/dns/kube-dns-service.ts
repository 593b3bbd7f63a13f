import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { isIPv6 } from 'node:net';
import { ENDPOINT_SLICES, SERVICES } from '../api/resource-refs.js';
import { realClock, type Clock } from '../base/clock.js';
import { isAlreadyExists, isInvalid, isNotFound } from '../client/rest/error-predicates.js';
import type { Client } from '../client/rest/client.js';
import type { Logger } from '../machinery/logger.js';

export const KUBE_DNS = { namespace: 'kube-system', name: 'kube-dns' } as const;
export const MANAGED_BY = 'skiff-dns';

export interface KubeDnsServiceOptions {
  client: Client;
  logger: Logger;
  /** The Service's cluster IP (the tenth address of the service range by convention). */
  clusterIP?: string;
  /** This DNS server's address and ports, published as the Service's endpoints. */
  endpoint: { ip: string; dnsPort: number; metricsPort?: number; nodeName?: string };
  /** Name of this server's EndpointSlice (one per DNS server). */
  sliceName: string;
  /** How often the objects are checked again (they may be deleted or edited). */
  resyncMs?: number;
  clock?: Clock;
}

/**
 * Publishes `kube-system/kube-dns` as CoreDNS's add-on manifest does
 * (ports 53/UDP `dns`, 53/TCP `dns-tcp`, 9153 `metrics`), but without a
 * selector: this DNS server runs beside the node, not as a pod, so it writes
 * its own EndpointSlice (like the API server's `kubernetes` Service) with
 * the address and port it listens on, and kube-proxy routes the cluster IP
 * there. An existing Service is left as it is (another DNS may own it).
 */
export class KubeDnsService {
  private readonly clock: Clock;

  constructor(private readonly o: KubeDnsServiceOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Keeps the Service and the slice in place until the signal aborts, then removes the slice. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.ensure();
      } catch (err) {
        if (signal.aborted) break;
        this.o.logger.warn('publishing the kube-dns Service failed; retrying', { error: err instanceof Error ? err.message : String(err) });
        await this.clock.sleep(2000, signal);
        continue;
      }
      await this.clock.sleep(this.o.resyncMs ?? 30_000, signal);
    }
    await this.o.client.resource(ENDPOINT_SLICES).namespace(KUBE_DNS.namespace).delete(this.o.sliceName).catch(() => undefined);
  }

  async ensure(): Promise<void> {
    const services = this.o.client.resource<Service>(SERVICES).namespace(KUBE_DNS.namespace);
    try {
      await services.get(KUBE_DNS.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        const created = await services.create(this.service(this.o.clusterIP)).catch((e: unknown) => {
          if (!isInvalid(e) || !this.o.clusterIP) throw e;
          // the address is taken or outside the range: any address beats no DNS Service
          this.o.logger.warn('kube-dns cluster IP unavailable; letting the API server allocate one', { clusterIP: this.o.clusterIP, error: e instanceof Error ? e.message : String(e) });
          return services.create(this.service(undefined));
        });
        this.o.logger.info('created the kube-dns Service', { clusterIP: created.spec?.clusterIP });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
    }
    // endpoints may not be loopback addresses (a host without another address keeps the Service without endpoints)
    if (/^127\.|^::1$/.test(this.o.endpoint.ip)) return;
    const slices = this.o.client.resource<EndpointSlice>(ENDPOINT_SLICES).namespace(KUBE_DNS.namespace);
    const want = this.slice();
    try {
      const have = await slices.get(this.o.sliceName);
      if (JSON.stringify([have.endpoints, have.ports, have.metadata?.labels]) === JSON.stringify([want.endpoints, want.ports, want.metadata?.labels])) return;
      await slices.update({ ...want, metadata: { ...want.metadata, resourceVersion: have.metadata?.resourceVersion } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await slices.create(want);
    }
  }

  private service(clusterIP: string | undefined): Service {
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: KUBE_DNS.name,
        namespace: KUBE_DNS.namespace,
        labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
        annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
      },
      spec: {
        ...(clusterIP ? { clusterIP } : {}),
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
        ],
      },
    };
  }

  private slice(): EndpointSlice {
    const e = this.o.endpoint;
    const ports: EndpointSlice['ports'] = [
      { name: 'dns', port: e.dnsPort, protocol: 'UDP' },
      { name: 'dns-tcp', port: e.dnsPort, protocol: 'TCP' },
      ...(e.metricsPort ? [{ name: 'metrics', port: e.metricsPort, protocol: 'TCP' }] : []),
    ];
    return {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: this.o.sliceName,
        namespace: KUBE_DNS.namespace,
        labels: { 'kubernetes.io/service-name': KUBE_DNS.name, 'endpointslice.kubernetes.io/managed-by': MANAGED_BY },
      },
      addressType: isIPv6(e.ip) ? 'IPv6' : 'IPv4',
      endpoints: [{ addresses: [e.ip], conditions: { ready: true, serving: true, terminating: false }, ...(e.nodeName ? { nodeName: e.nodeName } : {}) }],
      ports,
    };
  }
}
