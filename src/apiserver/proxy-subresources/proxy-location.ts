import { isIP } from 'node:net';
import type { Endpoints, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import { asKind } from '../../api/object.js';
import { badRequest, serviceUnavailable } from '../../machinery/api-error.js';
import type { ApiRegistry } from '../api-registry.js';
import { locateKubeletOnNode } from '../kubelet-proxy/locate-kubelet.js';

/** Where a proxy request goes: scheme, host and optional port; `kubelet` marks the kubelet's own endpoint (dialled with the API server's client certificate). */
export interface ProxyLocation {
  scheme: 'http' | 'https';
  host: string;
  port?: number;
  kubelet?: boolean;
}

/** `name`, `name:port` or `scheme:name:port`, as upstream's SplitSchemeNamePort; undefined when malformed. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) [name] = parts;
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (!name || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

/**
 * Whether an address may be proxied to (upstream: a global unicast IP; never
 * loopback, link-local, multicast or unspecified, so the API server cannot be
 * turned against itself or the metadata service).
 */
export function isProxyableIP(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) {
    const [a, b] = ip.split('.').map(Number);
    if (a === 0 || a === 127 || a >= 224) return false; // unspecified, loopback, multicast, reserved and broadcast
    if (a === 169 && b === 254) return false; // link-local
    return true;
  }
  if (family === 6) {
    const lower = ip.toLowerCase();
    if (lower === '::' || lower === '::1') return false;
    if (/^fe[89ab]/.test(lower) || lower.startsWith('ff')) return false; // link-local unicast, multicast
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped ? isProxyableIP(mapped[1]) : true;
  }
  return false;
}

const PORT = /^\d+$/;

function numericPort(port: string, what: string): number | undefined {
  if (!port) return undefined;
  const n = Number(port);
  if (!PORT.test(port) || n < 1 || n > 65535) throw badRequest(`invalid ${what} request: bad port ${JSON.stringify(port)}`);
  return n;
}

/** pods/{id}/proxy: the pod's IP and the named port, or its first declared container port. */
export async function podProxyLocation(registry: ApiRegistry, namespace: string, id: string): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = asKind<Pod>(await registry.lookup('', 'v1', 'pods')!.get(namespace, parsed.name));
  let port = parsed.port;
  if (!port) {
    const first = (pod.spec?.containers ?? []).find((c) => (c.ports ?? []).length > 0);
    if (first) port = String(first.ports![0].containerPort);
  }
  const ip = pod.status?.podIP ?? '';
  if (!isProxyableIP(ip)) throw badRequest('address not allowed');
  return { scheme: parsed.scheme === 'https' ? 'https' : 'http', host: ip, port: numericPort(port, 'pod') };
}

/**
 * services/{id}/proxy: a ready endpoint of the Service. A port number is
 * mapped to the Service port's name; an endpoint address counts only while
 * its pod exists and still has that IP (upstream's check).
 */
export async function serviceProxyLocation(registry: ApiRegistry, namespace: string, id: string): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid service request ${JSON.stringify(id)}`);
  const { name } = parsed;
  let portName = parsed.port;
  if (PORT.test(portName)) {
    const svc = asKind<Service>(await registry.lookup('', 'v1', 'services')!.get(namespace, name));
    const match = (svc.spec?.ports ?? []).find((p) => p.port === Number(portName));
    if (!match) throw serviceUnavailable(`no service port ${Number(portName)} found for service ${JSON.stringify(name)}`);
    portName = match.name ?? '';
  }
  const eps = asKind<Endpoints>(await registry.lookup('', 'v1', 'endpoints')!.get(namespace, name));
  const subsets = eps.subsets ?? [];
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
  const pods = registry.lookup('', 'v1', 'pods')!;
  for (const ss of rotate(subsets)) {
    const port = (ss.ports ?? []).find((p) => (p.name ?? '') === portName);
    if (!port) continue;
    for (const addr of rotate(ss.addresses ?? [])) {
      const ref = addr.targetRef;
      if (!ref?.name || (ref.namespace ?? namespace) !== namespace) continue;
      const found = await pods.get(namespace, ref.name).catch(() => undefined);
      if (!found || !(asKind<Pod>(found).status?.podIPs ?? []).some((p) => p.ip === addr.ip)) continue;
      return { scheme: parsed.scheme === 'https' ? 'https' : 'http', host: addr.ip, port: port.port };
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
}

/** nodes/{id}/proxy: the node's kubelet, or another port on the node with the requested scheme. */
export async function nodeProxyLocation(registry: ApiRegistry, id: string): Promise<ProxyLocation> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid node request ${JSON.stringify(id)}`);
  const node = asKind<Node>(await registry.lookup('', 'v1', 'nodes')!.get('', parsed.name));
  const kubelet = locateKubeletOnNode(node);
  if (!isProxyableIP(kubelet.host)) throw badRequest('address not allowed');
  const port = numericPort(parsed.port, 'node');
  if (port === undefined || port === kubelet.port) return { scheme: 'https', host: kubelet.host, port: kubelet.port, kubelet: true };
  return { scheme: parsed.scheme === 'https' ? 'https' : 'http', host: kubelet.host, port };
}

/** Starts at a random element, as upstream spreads proxy requests over endpoints. */
function rotate<T>(items: T[]): T[] {
  const start = Math.floor(Math.random() * items.length);
  return [...items.slice(start), ...items.slice(0, start)];
}
