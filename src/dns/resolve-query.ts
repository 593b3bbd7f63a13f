import type { Answer, Question, SoaAnswer } from 'dns-packet';
import { DnsIndex } from './dns-index.js';
import { ipFromDashed, ipFromReverseName, isReverseName } from './reverse-name.js';
import { addressType, type RecordEndpoint, type RecordPort, type ServiceRecord } from './service-records.js';

/** The specification version `dns-version.<zone>` answers (kubernetes/dns docs/specification.md). */
export const SCHEMA_VERSION = '1.1.0';

export type Rcode = 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'NOTIMP' | 'REFUSED';

/** An answer from the cluster's records. */
export interface Resolution {
  rcode: Rcode;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
  /** `<namespace>/<name>` of the Service whose records answered, if one did. */
  serviceKey?: string;
}

/** Not the cluster's to answer: forward it to the upstream resolvers. */
export interface Forward {
  forward: true;
}

export interface ResolveOptions {
  /** The cluster domain, e.g. `cluster.local` (no trailing dot). */
  zone: string;
  /** TTL of every record (CoreDNS's kubernetes plugin: 5 s by default). */
  ttl: number;
  /** The SOA serial: changes when the records do (CoreDNS uses the time of the last change). */
  serial: number;
  /** The DNS Service's own addresses, for `ns.dns.<zone>`. */
  nameserverIPs?: readonly string[];
}

/** A question's type as dns-packet decodes it (`ANY` included, which its types omit). */
type QType = string;

/**
 * Answers one question from the index as upstream's DNS specification and
 * CoreDNS's kubernetes plugin do: a name that does not exist is NXDOMAIN, a
 * name that exists without records of the asked type is NOERROR with no
 * answers (NODATA); both carry the zone's SOA so resolvers cache the miss.
 * Names outside the zone, and reverse names the cluster does not know, are
 * for the upstream resolvers.
 */
export function resolveQuery(index: DnsIndex, q: Question, o: ResolveOptions): Resolution | Forward {
  const qname = q.name.replace(/\.$/, '');
  const lower = qname.toLowerCase();
  const zone = o.zone.toLowerCase();
  const type: QType = q.type;

  if (isReverseName(lower)) {
    const ip = ipFromReverseName(lower);
    const target = ip === undefined ? undefined : index.reverse(ip);
    if (!target) return { forward: true };
    if (type !== 'PTR' && type !== 'ANY') return nodata(o);
    return { rcode: 'NOERROR', answers: [{ name: qname, type: 'PTR', ttl: o.ttl, data: `${target.name}.${zone}` }], authorities: [], additionals: [], serviceKey: target.serviceKey };
  }
  if (lower !== zone && !lower.endsWith(`.${zone}`)) return { forward: true };
  if (q.class !== 'IN' && q.class !== 'ANY') return { rcode: 'REFUSED', answers: [], authorities: [], additionals: [] };

  const labels = lower === zone ? [] : lower.slice(0, -(zone.length + 1)).split('.');
  const r = new Responder(qname, type, o);
  if (labels.length === 0) return r.apex();
  const last = labels[labels.length - 1];
  if (labels.length === 1 && last === 'dns-version') return type === 'TXT' || type === 'ANY' ? r.answer([{ name: qname, type: 'TXT', ttl: o.ttl, data: SCHEMA_VERSION }]) : r.nodata();
  if (labels.length === 2 && labels[0] === 'ns' && last === 'dns') return r.addresses(o.nameserverIPs ?? []);
  if (last === 'pod') return r.pod(labels);
  if (last !== 'svc') return r.nxdomain();
  if (labels.length === 1) return r.nodata();
  const namespace = labels[labels.length - 2];
  if (labels.length === 2) return index.hasNamespace(namespace) ? r.nodata() : r.nxdomain();
  const svc = index.service(namespace, labels[labels.length - 3]);
  if (!svc) return r.nxdomain();
  const key = DnsIndex.key(svc.namespace, svc.name);
  const rest = labels.slice(0, -3);
  const result = rest.length === 0 ? r.service(svc) : rest.length === 1 ? r.endpoint(svc, rest[0]) : rest.length === 2 ? r.port(svc, rest[0], rest[1]) : r.nxdomain();
  return { ...result, serviceKey: key };
}

function nodata(o: ResolveOptions): Resolution {
  return { rcode: 'NOERROR', answers: [], authorities: [soa(o)], additionals: [] };
}

function soa(o: ResolveOptions): SoaAnswer {
  return {
    name: o.zone, type: 'SOA', ttl: o.ttl,
    data: { mname: `ns.dns.${o.zone}`, rname: `hostmaster.${o.zone}`, serial: o.serial, refresh: 7200, retry: 1800, expire: 86400, minimum: o.ttl },
  };
}

/** Builds the answers for one question. */
class Responder {
  constructor(
    private readonly qname: string,
    private readonly type: QType,
    private readonly o: ResolveOptions,
  ) {}

  answer(answers: Answer[], additionals: Answer[] = []): Resolution {
    return answers.length === 0 ? this.nodata() : { rcode: 'NOERROR', answers, authorities: [], additionals };
  }

  nodata(): Resolution {
    return nodata(this.o);
  }

  nxdomain(): Resolution {
    return { rcode: 'NXDOMAIN', answers: [], authorities: [soa(this.o)], additionals: [] };
  }

  apex(): Resolution {
    const zone = this.o.zone;
    if (this.type === 'SOA') return this.answer([{ ...soa(this.o), name: this.qname }]);
    if (this.type === 'NS') return this.answer([{ name: this.qname, type: 'NS', ttl: this.o.ttl, data: `ns.dns.${zone}` }], this.addressRecords(`ns.dns.${zone}`, this.o.nameserverIPs ?? [], 'ANY'));
    return this.nodata();
  }

  addresses(ips: readonly string[]): Resolution {
    return this.answer(this.addressRecords(this.qname, ips, this.type));
  }

  /** `<a-b-c-d>.<namespace>.pod.<zone>`: the IP in the name, without checking a pod has it (CoreDNS's `pods insecure`, kubeadm's default). */
  pod(labels: string[]): Resolution {
    if (labels.length !== 3) return labels.length < 3 ? this.nodata() : this.nxdomain();
    const ip = ipFromDashed(labels[0]);
    return ip === undefined ? this.nxdomain() : this.addresses([ip]);
  }

  service(svc: ServiceRecord): Resolution {
    if (svc.kind === 'ExternalName') return { rcode: 'NOERROR', answers: [{ name: this.qname, type: 'CNAME', ttl: this.o.ttl, data: svc.externalName ?? '' }], authorities: [], additionals: [] };
    if (svc.kind === 'Headless' && svc.endpoints.length === 0) return this.nxdomain();
    if (this.type === 'SRV') return this.srv(svc, svc.ports);
    return this.addresses(svc.kind === 'ClusterIP' ? svc.clusterIPs : svc.endpoints.map((e) => e.ip));
  }

  /** `<hostname>.<service>.<namespace>.svc.<zone>`: a headless Service's endpoint by hostname. */
  endpoint(svc: ServiceRecord, hostname: string): Resolution {
    const matching = svc.kind === 'Headless' ? svc.endpoints.filter((e) => e.hostname === hostname) : [];
    if (matching.length === 0) return this.nxdomain();
    return this.addresses(matching.map((e) => e.ip));
  }

  /** `_<port>._<protocol>.<service>.<namespace>.svc.<zone>`: SRV for a named port. */
  port(svc: ServiceRecord, portLabel: string, protoLabel: string): Resolution {
    if (!portLabel.startsWith('_') || !protoLabel.startsWith('_') || svc.kind === 'ExternalName') return this.nxdomain();
    const name = portLabel.slice(1);
    const protocol = protoLabel.slice(1);
    const ports = svc.ports.filter((p) => p.name === name && p.protocol === protocol && p.name !== '');
    if (ports.length === 0 || (svc.kind === 'Headless' && svc.endpoints.length === 0)) return this.nxdomain();
    return this.type === 'SRV' || this.type === 'ANY' ? this.srv(svc, ports) : this.nodata();
  }

  private srv(svc: ServiceRecord, ports: readonly RecordPort[]): Resolution {
    const base = `${svc.name}.${svc.namespace}.svc.${this.o.zone}`;
    const targets: { port: number; target: string; ips: string[] }[] = [];
    if (svc.kind === 'ClusterIP') {
      for (const p of ports) targets.push({ port: p.port, target: base, ips: svc.clusterIPs });
    } else {
      for (const p of ports) {
        for (const ep of svc.endpoints) {
          const port = endpointPort(ep, p);
          if (port !== undefined) targets.push({ port, target: `${ep.hostname}.${base}`, ips: [ep.ip] });
        }
      }
    }
    const weight = Math.max(1, Math.floor(100 / Math.max(1, targets.length)));
    const answers: Answer[] = targets.map((t) => ({ name: this.qname, type: 'SRV', ttl: this.o.ttl, data: { priority: 0, weight, port: t.port, target: t.target } }));
    const seen = new Set<string>();
    const additionals: Answer[] = [];
    for (const t of targets) {
      if (seen.has(t.target)) continue;
      seen.add(t.target);
      additionals.push(...this.addressRecords(t.target, t.ips, 'ANY'));
    }
    return this.answer(answers, additionals);
  }

  private addressRecords(name: string, ips: readonly string[], type: QType): Answer[] {
    const want = type === 'ANY' ? undefined : type;
    return ips.filter((ip) => want === undefined || addressType(ip) === want).map((ip) => ({ name, type: addressType(ip), ttl: this.o.ttl, data: ip }));
  }
}

/** The endpoint's port for a Service port: by name, as the EndpointSlice carries it. */
function endpointPort(ep: RecordEndpoint, p: RecordPort): number | undefined {
  if (ep.ports.length === 0) return p.port;
  return ep.ports.find((x) => x.name === p.name && x.protocol === p.protocol)?.port;
}
