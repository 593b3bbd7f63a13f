import type { Service, ServiceSpec } from 'kubernetes-types/core/v1.js';
import { child, duplicate, forbidden, index, invalid, notSupported, required, type ErrorList } from './errors.js';
import { SUPPORTED_PORT_PROTOCOLS, validateDNS1123Label, validateDNS1123Subdomain } from './container.js';
import { validateIP } from './ip.js';
import { isValidPortNum, nameIsDNS1035Label } from './name.js';
import { validateLabels, validateObjectMeta, validateQualifiedName } from './object-meta.js';
import { validatePortNumOrName } from './probe.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function isHeadless(spec: ServiceSpec): boolean {
  return spec.clusterIP === 'None';
}

function validateClusterIPs(spec: ServiceSpec): ErrorList {
  const errs: ErrorList = [];
  const ips = spec.clusterIPs ?? [];
  if (spec.type === 'ExternalName') {
    if (spec.clusterIP) errs.push(forbidden('spec.clusterIP', 'may not be set for ExternalName services'));
    if (ips.length) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    return errs;
  }
  if (ips.length && spec.clusterIP !== ips[0]) errs.push(invalid('spec.clusterIPs', ips, 'first value must match `clusterIP`'));
  if (ips.length > 2) errs.push(invalid('spec.clusterIPs', ips, 'may only hold up to 2 values'));
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) errs.push(invalid('spec.clusterIPs', ips, "'None' must be the first and only value"));
      return;
    }
    errs.push(...validateIP(ip, index('spec.clusterIPs', i)));
  });
  if (spec.ipFamilyPolicy !== undefined && !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(spec.ipFamilyPolicy)) {
    errs.push(notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  (spec.ipFamilies ?? []).forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(notSupported(index('spec.ipFamilies', i), f, ['IPv4', 'IPv6']));
  });
  return errs;
}

export function validateService(svc: Service): ErrorList {
  const errs = validateObjectMeta(svc.metadata, true, nameIsDNS1035Label);
  const spec: ServiceSpec = svc.spec ?? {};
  const ports = spec.ports ?? [];
  if (ports.length === 0 && !isHeadless(spec) && spec.type !== 'ExternalName') errs.push(required('spec.ports'));
  if (spec.type === 'ExternalName') {
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    if (cname) errs.push(...validateDNS1123Subdomain(cname, 'spec.externalName'));
    else errs.push(required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = index('spec.ports', i);
    if (ports.length > 1 && !port.name) {
      errs.push(required(child(p, 'name')));
    } else if (port.name) {
      errs.push(...validateDNS1123Label(port.name, child(p, 'name')));
      if (names.has(port.name)) errs.push(duplicate(child(p, 'name'), port.name));
      names.add(port.name);
    }
    for (const m of isValidPortNum(port.port)) errs.push(invalid(child(p, 'port'), port.port, m));
    if (!port.protocol) errs.push(required(child(p, 'protocol')));
    else if (!SUPPORTED_PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(p, 'protocol'), port.protocol, SUPPORTED_PORT_PROTOCOLS));
    if (port.targetPort !== undefined) errs.push(...validatePortNumOrName(port.targetPort, child(p, 'targetPort')));
    if (port.appProtocol !== undefined) errs.push(...validateQualifiedName(port.appProtocol, child(p, 'appProtocol')));
    if (port.nodePort !== undefined && port.nodePort !== 0) {
      for (const m of isValidPortNum(port.nodePort)) errs.push(invalid(child(p, 'nodePort'), port.nodePort, m));
    }
  });
  if (spec.selector) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  if (!spec.sessionAffinity) errs.push(required('spec.sessionAffinity'));
  else if (!['ClientIP', 'None'].includes(spec.sessionAffinity)) errs.push(notSupported('spec.sessionAffinity', spec.sessionAffinity, ['ClientIP', 'None']));
  const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (spec.sessionAffinity === 'ClientIP' && timeout !== undefined && (timeout <= 0 || timeout > 86400)) {
    errs.push(invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
  }
  if (!spec.type) errs.push(required('spec.type'));
  else if (!SERVICE_TYPES.includes(spec.type)) errs.push(notSupported('spec.type', spec.type, SERVICE_TYPES));
  if (spec.type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (port.nodePort) errs.push(forbidden(child(index('spec.ports', i), 'nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  const portKeys = new Set<string>();
  ports.forEach((port, i) => {
    const p = index('spec.ports', i);
    if (port.nodePort) {
      const k = `${port.protocol}/${port.nodePort}`;
      if (nodePorts.has(k)) errs.push(duplicate(child(p, 'nodePort'), port.nodePort));
      nodePorts.add(k);
    }
    const k = `${port.protocol}/${port.port}`;
    if (portKeys.has(k)) errs.push(duplicate(p, { protocol: port.protocol, port: port.port }));
    portKeys.add(k);
  });
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (external) {
    if (!spec.externalTrafficPolicy) errs.push(required('spec.externalTrafficPolicy'));
    else if (!['Cluster', 'Local'].includes(spec.externalTrafficPolicy)) errs.push(notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy, ['Cluster', 'Local']));
  } else if (spec.externalTrafficPolicy) {
    errs.push(invalid('spec.externalTrafficPolicy', spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
  }
  if (spec.healthCheckNodePort) {
    if (spec.type !== 'LoadBalancer' || spec.externalTrafficPolicy !== 'Local') errs.push(forbidden('spec.healthCheckNodePort', "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    else if (!isValidPortNum(spec.healthCheckNodePort)) errs.push(invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, 'must be between 1 and 65535, inclusive'));
  }
  if (spec.internalTrafficPolicy === undefined) {
    if (spec.type === 'ClusterIP' || external) errs.push(required('spec.internalTrafficPolicy'));
  } else if (!['Cluster', 'Local'].includes(spec.internalTrafficPolicy)) {
    errs.push(notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  errs.push(...validateClusterIPs(spec));
  return errs;
}

/** The primary cluster IP may not change (ExternalName services have none). */
export function validateServiceUpdate(svc: Service, old: Service): ErrorList {
  const s = svc.spec ?? {};
  const o = old.spec ?? {};
  if (s.type === 'ExternalName' || o.type === 'ExternalName') return [];
  const errs: ErrorList = [];
  const oldIPs = o.clusterIPs ?? (o.clusterIP ? [o.clusterIP] : []);
  const newIPs = s.clusterIPs ?? (s.clusterIP ? [s.clusterIP] : []);
  if (oldIPs.length && newIPs.length && oldIPs[0] !== newIPs[0]) errs.push(invalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
  if (oldIPs.length > 1 && newIPs.length > 1 && oldIPs[1] !== newIPs[1]) errs.push(invalid('spec.clusterIPs[1]', newIPs, 'may not change once set'));
  const oldFamilies = o.ipFamilies ?? [];
  const newFamilies = s.ipFamilies ?? [];
  if (oldFamilies.length && newFamilies.length && oldFamilies[0] !== newFamilies[0]) {
    errs.push(invalid('spec.ipFamilies[0]', newFamilies[0], 'may not change once set'));
  }
  return errs;
}
