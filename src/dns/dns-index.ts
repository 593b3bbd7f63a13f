import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { serviceRecord, type ServiceRecord } from './service-records.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** A reverse (PTR) target: the name an IP belongs to, and its Service. */
export interface PtrTarget {
  /** Relative to the zone, e.g. `web.default.svc` or `web-0.web.default.svc`. */
  name: string;
  serviceKey: string;
}

/**
 * The in-memory index DNS answers from: one record per Service (built from
 * the Service and its EndpointSlices), namespaces that hold Services, and
 * reverse entries for cluster IPs and named endpoints. Every change bumps
 * `generation`, which invalidates cached answers.
 */
export class DnsIndex {
  generation = 0;
  private readonly services = new Map<string, Service>();
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  private readonly records = new Map<string, ServiceRecord>();
  private readonly namespaces = new Map<string, number>();
  private readonly ptr = new Map<string, PtrTarget>();

  /** `<namespace>/<name>` of a Service. */
  static key(namespace: string, name: string): string {
    return `${namespace}/${name}`;
  }

  service(namespace: string, name: string): ServiceRecord | undefined {
    return this.records.get(DnsIndex.key(namespace, name));
  }

  hasNamespace(namespace: string): boolean {
    return (this.namespaces.get(namespace) ?? 0) > 0;
  }

  reverse(ip: string): PtrTarget | undefined {
    return this.ptr.get(ip);
  }

  /** Adds or replaces a Service; returns its key. */
  setService(svc: Service): string {
    const key = DnsIndex.key(svc.metadata?.namespace ?? '', svc.metadata?.name ?? '');
    this.services.set(key, svc);
    this.rebuild(key);
    return key;
  }

  deleteService(namespace: string, name: string): string {
    const key = DnsIndex.key(namespace, name);
    this.services.delete(key);
    this.rebuild(key);
    return key;
  }

  /** Adds or replaces an EndpointSlice; returns its Service's key, if it names one. */
  setSlice(slice: EndpointSlice): string | undefined {
    const key = sliceServiceKey(slice);
    if (!key) return undefined;
    let byName = this.slices.get(key);
    if (!byName) this.slices.set(key, (byName = new Map()));
    byName.set(slice.metadata?.name ?? '', slice);
    this.rebuild(key);
    return key;
  }

  deleteSlice(slice: EndpointSlice): string | undefined {
    const key = sliceServiceKey(slice);
    if (!key) return undefined;
    const byName = this.slices.get(key);
    byName?.delete(slice.metadata?.name ?? '');
    if (byName?.size === 0) this.slices.delete(key);
    this.rebuild(key);
    return key;
  }

  private rebuild(key: string): void {
    this.generation++;
    const old = this.records.get(key);
    if (old) {
      this.forgetReverse(old, key);
      this.countNamespace(old.namespace, -1);
      this.records.delete(key);
    }
    const svc = this.services.get(key);
    if (!svc) return;
    const rec = serviceRecord(svc, [...(this.slices.get(key)?.values() ?? [])]);
    this.records.set(key, rec);
    this.countNamespace(rec.namespace, 1);
    const base = `${rec.name}.${rec.namespace}.svc`;
    for (const ip of rec.clusterIPs) this.ptr.set(ip, { name: base, serviceKey: key });
    for (const ep of rec.endpoints) if (ep.explicitHostname && !this.ptr.has(ep.ip)) this.ptr.set(ep.ip, { name: `${ep.hostname}.${base}`, serviceKey: key });
  }

  private forgetReverse(rec: ServiceRecord, key: string): void {
    for (const ip of [...rec.clusterIPs, ...rec.endpoints.map((e) => e.ip)]) if (this.ptr.get(ip)?.serviceKey === key) this.ptr.delete(ip);
  }

  private countNamespace(namespace: string, delta: number): void {
    const n = (this.namespaces.get(namespace) ?? 0) + delta;
    if (n <= 0) this.namespaces.delete(namespace);
    else this.namespaces.set(namespace, n);
  }
}

function sliceServiceKey(slice: EndpointSlice): string | undefined {
  const name = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return name ? DnsIndex.key(slice.metadata?.namespace ?? '', name) : undefined;
}
