import type { HTTPIngressPath, Ingress, IngressBackend, IngressClass, IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { child, forbidden, index, invalid, notSupported, required, tooLong, validateImmutableField, type ErrorList } from './errors.js';
import { validateLabelSelector } from './label-selector.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortName, isValidPortNum, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta } from './object-meta.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

/** A CIDR as Go's net.ParseCIDR accepts it: [address, prefix length, bits], or undefined. */
function parseCIDR(value: string): { bytes: number[]; prefix: number; bits: number } | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (m) {
    const bytes = m.slice(1, 5).map(Number);
    const prefix = Number(m[5]);
    if (bytes.some((b) => b > 255) || prefix > 32) return undefined;
    return { bytes, prefix, bits: 32 };
  }
  const v6 = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(value);
  if (!v6 || Number(v6[2]) > 128 || !v6[1].includes(':')) return undefined;
  const parts = v6[1].split('::');
  if (parts.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const gs = s.split(':');
    return gs.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) ? gs.map((g) => parseInt(g, 16)) : undefined;
  };
  const head = groups(parts[0]);
  const tail = parts.length === 2 ? groups(parts[1]) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (parts.length === 1 && fill !== 0)) return undefined;
  const words = [...head, ...new Array<number>(fill).fill(0), ...tail];
  return { bytes: words.flatMap((w) => [w >> 8, w & 255]), prefix: Number(v6[2]), bits: 128 };
}

function cidrErrors(value: string, path: string): ErrorList {
  return parseCIDR(value) ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** Whether `inner`'s network address lies in `outer` (the same family). */
function contains(outer: { bytes: number[]; prefix: number; bits: number }, inner: { bytes: number[]; bits: number }): boolean {
  if (outer.bits !== inner.bits) return false;
  for (let bit = 0; bit < outer.prefix; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((outer.bytes[byte] & mask) !== (inner.bytes[byte] & mask)) return false;
  }
  return true;
}

function validateIPBlock(block: IPBlock, path: string): ErrorList {
  if (!block.cidr) return [required(child(path, 'cidr'))];
  const errs = cidrErrors(block.cidr, child(path, 'cidr'));
  const cidr = parseCIDR(block.cidr);
  if (!cidr) return errs;
  (block.except ?? []).forEach((except, i) => {
    const p = index(child(path, 'except'), i);
    errs.push(...cidrErrors(except, p));
    const e = parseCIDR(except);
    if (e && (!contains(cidr, e) || cidr.prefix >= e.prefix)) errs.push(invalid(p, except, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePort(port: NetworkPolicyPort, path: string): ErrorList {
  const errs: ErrorList = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(path, 'protocol'), port.protocol, ['TCP', 'UDP', 'SCTP']));
  if (port.port !== undefined) {
    if (typeof port.port === 'number') {
      for (const m of isValidPortNum(port.port)) errs.push(invalid(child(path, 'port'), port.port, m));
      if (port.endPort !== undefined) {
        if (port.endPort < port.port) errs.push(invalid(child(path, 'endPort'), port.port, 'must be greater than or equal to `port`'));
        for (const m of isValidPortNum(port.endPort)) errs.push(invalid(child(path, 'endPort'), port.endPort, m));
      }
    } else {
      if (port.endPort !== undefined) errs.push(invalid(child(path, 'endPort'), port.endPort, 'may not be specified when `port` is non-numeric'));
      for (const m of isValidPortName(port.port)) errs.push(invalid(child(path, 'port'), port.port, m));
    }
  } else if (port.endPort !== undefined) {
    errs.push(invalid(child(path, 'endPort'), port.endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validatePeer(peer: NetworkPolicyPeer, path: string): ErrorList {
  const errs: ErrorList = [];
  let peers = 0;
  if (peer.podSelector) {
    peers++;
    errs.push(...validateLabelSelector(peer.podSelector, child(path, 'podSelector')));
  }
  if (peer.namespaceSelector) {
    peers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, child(path, 'namespaceSelector')));
  }
  if (peer.ipBlock) {
    peers++;
    errs.push(...validateIPBlock(peer.ipBlock, child(path, 'ipBlock')));
  }
  if (peers === 0) errs.push(required(path, 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock) errs.push(forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Upstream's ValidateNetworkPolicy (networking/validation). */
export function validateNetworkPolicy(np: NetworkPolicy): ErrorList {
  const errs = validateObjectMeta(np.metadata, true, nameIsDNSSubdomain);
  const spec = np.spec ?? { podSelector: {} };
  errs.push(...validateLabelSelector(spec.podSelector, 'spec.podSelector'));
  (spec.ingress ?? []).forEach((rule, i) => {
    const p = index('spec.ingress', i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, index(child(p, 'ports'), j))));
    (rule.from ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, index(child(p, 'from'), j))));
  });
  (spec.egress ?? []).forEach((rule, i) => {
    const p = index('spec.egress', i);
    (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, index(child(p, 'ports'), j))));
    (rule.to ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, index(child(p, 'to'), j))));
  });
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    errs.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(index('spec.policyTypes', i), t, POLICY_TYPES));
  });
  return errs;
}

function validateBackend(backend: IngressBackend, path: string): ErrorList {
  const errs: ErrorList = [];
  if (backend.service && backend.resource) return [invalid(path, '', 'cannot set both service and resource backends')];
  if (backend.service) {
    const sp = child(path, 'service');
    if (!backend.service.name) errs.push(required(child(sp, 'name')));
    else for (const m of isDNS1035Label(backend.service.name)) errs.push(invalid(child(sp, 'name'), backend.service.name, m));
    const port = backend.service.port ?? {};
    const pp = child(sp, 'port');
    if (port.name && port.number) errs.push(invalid(pp, port, 'cannot set both port name & port number'));
    else if (port.name) for (const m of isValidPortName(port.name)) errs.push(invalid(child(pp, 'name'), port.name, m));
    else if (port.number) for (const m of isValidPortNum(port.number)) errs.push(invalid(child(pp, 'number'), port.number, m));
    else errs.push(required(pp, 'port name or number is required'));
  } else if (backend.resource) {
    const rp = child(path, 'resource');
    if (!backend.resource.kind) errs.push(required(child(rp, 'kind')));
    if (!backend.resource.name) errs.push(required(child(rp, 'name')));
  } else {
    errs.push(invalid(path, '', 'resource or service backend is required'));
  }
  return errs;
}

function validatePath(path: HTTPIngressPath, p: string): ErrorList {
  const errs: ErrorList = [];
  if (!path.pathType) errs.push(required(child(p, 'pathType'), 'pathType must be specified'));
  else if (!PATH_TYPES.includes(path.pathType)) errs.push(notSupported(child(p, 'pathType'), path.pathType, PATH_TYPES));
  else if (path.pathType !== 'ImplementationSpecific' && !(path.path ?? '').startsWith('/')) errs.push(invalid(child(p, 'path'), path.path ?? '', 'must be an absolute path'));
  errs.push(...validateBackend(path.backend ?? {}, child(p, 'backend')));
  return errs;
}

/** A host or a `*.` wildcard host. */
function hostErrors(host: string, path: string): ErrorList {
  const plain = host.startsWith('*.') ? host.slice(2) : host;
  const msgs = isDNS1123Subdomain(plain);
  if (host.includes('*') && !host.startsWith('*.')) msgs.push("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain");
  return msgs.map((m) => invalid(path, host, m));
}

/** Upstream's ValidateIngress (networking/validation), the parts a manifest meets. */
export function validateIngress(ing: Ingress): ErrorList {
  const errs = validateObjectMeta(ing.metadata, true, nameIsDNSSubdomain);
  const spec = ing.spec ?? {};
  if (!spec.defaultBackend && (spec.rules ?? []).length === 0) errs.push(invalid('spec', spec, 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  if (spec.ingressClassName !== undefined) for (const m of isDNS1123Subdomain(spec.ingressClassName)) errs.push(invalid('spec.ingressClassName', spec.ingressClassName, m));
  (spec.rules ?? []).forEach((rule, i) => {
    const p = index('spec.rules', i);
    if (rule.host) {
      if (/^\d+\.\d+\.\d+\.\d+$/.test(rule.host)) errs.push(invalid(child(p, 'host'), rule.host, 'must be a DNS name, not an IP address'));
      else errs.push(...hostErrors(rule.host, child(p, 'host')));
    }
    if (rule.http) {
      const paths = rule.http.paths ?? [];
      if (paths.length === 0) errs.push(required(child(p, 'http', 'paths')));
      paths.forEach((path, j) => errs.push(...validatePath(path, index(child(p, 'http', 'paths'), j))));
    }
  });
  (spec.tls ?? []).forEach((tls, i) => {
    (tls.hosts ?? []).forEach((host, j) => errs.push(...hostErrors(host, index(child(index('spec.tls', i), 'hosts'), j))));
  });
  return errs;
}

const CONTROLLER_MAX = 250;

/** Upstream's ValidateIngressClass. */
export function validateIngressClass(ic: IngressClass): ErrorList {
  const errs = validateObjectMeta(ic.metadata, false, nameIsDNSSubdomain);
  const controller = ic.spec?.controller ?? '';
  if (!controller) errs.push(required('spec.controller'));
  else {
    if (controller.length > CONTROLLER_MAX) errs.push(tooLong('spec.controller', CONTROLLER_MAX));
    const slash = controller.indexOf('/');
    const domain = slash < 0 ? controller : controller.slice(0, slash);
    if (slash < 0) errs.push(invalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    else for (const m of isDNS1123Subdomain(domain)) errs.push(invalid('spec.controller', controller, m));
  }
  const params = ic.spec?.parameters;
  if (params) {
    const p = 'spec.parameters';
    if (!params.kind) errs.push(required(child(p, 'kind')));
    if (!params.name) errs.push(required(child(p, 'name')));
    if (params.apiGroup) for (const m of isDNS1123Subdomain(params.apiGroup)) errs.push(invalid(child(p, 'apiGroup'), params.apiGroup, m));
    const scope = params.scope;
    if (scope === undefined) errs.push(required(child(p, 'scope')));
    else if (scope !== 'Cluster' && scope !== 'Namespace') errs.push(notSupported(child(p, 'scope'), scope, ['Cluster', 'Namespace']));
    else if (scope === 'Namespace' && !params.namespace) errs.push(required(child(p, 'namespace'), '`parameters.scope` is set to \'Namespace\''));
    else if (scope === 'Cluster' && params.namespace) errs.push(forbidden(child(p, 'namespace'), '`parameters.scope` is set to \'Cluster\''));
  }
  return errs;
}

export function validateIngressClassUpdate(ic: IngressClass, old: IngressClass): ErrorList {
  return validateImmutableField(ic.spec?.controller, old.spec?.controller, 'spec.controller');
}
