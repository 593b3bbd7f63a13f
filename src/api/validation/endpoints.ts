import type { EndpointAddress, EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { child, duplicate, index, invalid, notSupported, required, tooMany, type ErrorList } from './errors.js';
import { SUPPORTED_PORT_PROTOCOLS, validateDNS1123Label } from './container.js';
import { validateIP, validateIPv4, validateIPv6, validateNonSpecialIP } from './ip.js';
import { isDNS1123Subdomain, isValidPortNum, nameIsDNSSubdomain } from './name.js';
import { validateObjectMeta, validateQualifiedName } from './object-meta.js';

function validateAddress(a: EndpointAddress, path: string): ErrorList {
  const errs = validateIP(a.ip, child(path, 'ip'));
  if (errs.length === 0) errs.push(...validateNonSpecialIP(a.ip, child(path, 'ip')));
  if (a.hostname) errs.push(...validateDNS1123Label(a.hostname, child(path, 'hostname')));
  if (a.nodeName) for (const m of isDNS1123Subdomain(a.nodeName)) errs.push(invalid(child(path, 'nodeName'), a.nodeName, m));
  return errs;
}

function validatePort(port: EndpointPort, requireName: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  if (requireName && !port.name) errs.push(required(child(path, 'name')));
  else if (port.name) errs.push(...validateDNS1123Label(port.name, child(path, 'name')));
  for (const m of isValidPortNum(port.port)) errs.push(invalid(child(path, 'port'), port.port, m));
  if (!port.protocol) errs.push(required(child(path, 'protocol')));
  else if (!SUPPORTED_PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(path, 'protocol'), port.protocol, SUPPORTED_PORT_PROTOCOLS));
  return errs;
}

export function validateEndpoints(ep: Endpoints): ErrorList {
  const errs = validateObjectMeta(ep.metadata, true, nameIsDNSSubdomain);
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = index('subsets', i);
    if (!ss.addresses?.length && !ss.notReadyAddresses?.length) errs.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    (ss.addresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(p, 'addresses'), j))));
    (ss.notReadyAddresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, index(child(p, 'notReadyAddresses'), j))));
    const ports = ss.ports ?? [];
    ports.forEach((port, j) => errs.push(...validatePort(port, ports.length > 1, index(child(p, 'ports'), j))));
  });
  return errs;
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;

export function validateEndpointSlice(slice: EndpointSlice): ErrorList {
  const errs = validateObjectMeta(slice.metadata, true, nameIsDNSSubdomain);
  const addressType = slice.addressType ?? '';
  if (!addressType) errs.push(required('addressType'));
  else if (!ADDRESS_TYPES.includes(addressType)) errs.push(notSupported('addressType', addressType, ADDRESS_TYPES));
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > MAX_ENDPOINTS) errs.push(tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  endpoints.forEach((ep, i) => {
    const p = index('endpoints', i);
    const ap = child(p, 'addresses');
    if (!ep.addresses?.length) errs.push(required(ap, 'must contain at least 1 address'));
    else if (ep.addresses.length > MAX_ADDRESSES) errs.push(tooMany(ap, ep.addresses.length, MAX_ADDRESSES));
    (ep.addresses ?? []).forEach((addr, j) => {
      const path = index(ap, j);
      if (addressType === 'IPv4' || addressType === 'IPv6') {
        const ipErrs = addressType === 'IPv4' ? validateIPv4(addr, path) : validateIPv6(addr, path);
        errs.push(...(ipErrs.length ? ipErrs : validateNonSpecialIP(addr, path)));
      } else if (addressType === 'FQDN') {
        for (const m of isDNS1123Subdomain(addr)) errs.push(invalid(path, addr, m));
      }
    });
    if (ep.nodeName) for (const m of isDNS1123Subdomain(ep.nodeName)) errs.push(invalid(child(p, 'nodeName'), ep.nodeName, m));
    if (ep.hostname) errs.push(...validateDNS1123Label(ep.hostname, child(p, 'hostname')));
  });
  const names = new Set<string>();
  (slice.ports ?? []).forEach((port, i) => {
    const p = index('ports', i);
    const name = port.name ?? '';
    if (name) errs.push(...validateDNS1123Label(name, child(p, 'name')));
    if (names.has(name)) errs.push(duplicate(child(p, 'name'), name));
    names.add(name);
    if (!port.protocol) errs.push(required(child(p, 'protocol')));
    else if (!SUPPORTED_PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(p, 'protocol'), port.protocol, SUPPORTED_PORT_PROTOCOLS));
    if (port.appProtocol !== undefined) errs.push(...validateQualifiedName(port.appProtocol, child(p, 'appProtocol')));
  });
  return errs;
}

export function validateEndpointSliceUpdate(slice: EndpointSlice, old: EndpointSlice): ErrorList {
  return slice.addressType === old.addressType ? [] : [invalid('addressType', slice.addressType, 'field is immutable')];
}
