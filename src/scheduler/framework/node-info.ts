import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { PodInfo } from './pod-info.js';
import { addResource, addResourceList, cloneResource, emptyResource, type Resource } from './resource.js';

const WILDCARD_IP = '0.0.0.0';

/** Host ports in use on a node, keyed by `protocol/port`, each with the host IPs bound. */
export class HostPortInfo {
  private readonly ports = new Map<string, Map<string, number>>();

  add(ip: string | undefined, protocol: string | undefined, port: number): void {
    const key = `${protocol || 'TCP'}/${port}`;
    let ips = this.ports.get(key);
    if (!ips) this.ports.set(key, (ips = new Map()));
    const i = ip || WILDCARD_IP;
    ips.set(i, (ips.get(i) ?? 0) + 1);
  }

  remove(ip: string | undefined, protocol: string | undefined, port: number): void {
    const key = `${protocol || 'TCP'}/${port}`;
    const ips = this.ports.get(key);
    const i = ip || WILDCARD_IP;
    const n = ips?.get(i);
    if (!ips || n === undefined) return;
    if (n > 1) ips.set(i, n - 1);
    else ips.delete(i);
    if (ips.size === 0) this.ports.delete(key);
  }

  /** 0.0.0.0 conflicts with every IP on the same protocol and port. */
  conflicts(ip: string | undefined, protocol: string | undefined, port: number): boolean {
    const ips = this.ports.get(`${protocol || 'TCP'}/${port}`);
    if (!ips) return false;
    const i = ip || WILDCARD_IP;
    return i === WILDCARD_IP || ips.has(WILDCARD_IP) || ips.has(i);
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [k, ips] of this.ports) c.ports.set(k, new Map(ips));
    return c;
  }
}

function forEachHostPort(pod: Pod, fn: (ip: string | undefined, protocol: string | undefined, port: number) => void): void {
  for (const c of [...(pod.spec?.initContainers ?? []).filter((i) => i.restartPolicy === 'Always'), ...(pod.spec?.containers ?? [])]) {
    for (const p of c.ports ?? []) if (p.hostPort) fn(p.hostIP, p.protocol, p.hostPort);
  }
}

/** Images on a node, as upstream's ImageStateSummary. */
export interface ImageState {
  size: number;
}

/**
 * One node as the scheduler sees it: the Node object, the pods on it (bound
 * or assumed) and running totals, so that filters and scores are cheap.
 */
export class NodeInfo {
  node?: Node;
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  requested: Resource = emptyResource();
  nonZeroRequested: Resource = emptyResource();
  allocatable: Resource = emptyResource();
  images = new Map<string, ImageState>();
  /** Bumped on every change, so callers can tell a stale copy. */
  generation = 0;

  constructor(node?: Node) {
    if (node) this.setNode(node);
  }

  /** The node's name, kept from setNode: read for every node in every attempt. */
  get name(): string {
    return this.node ? this.nodeName : '';
  }

  private nodeName = '';

  setNode(node: Node): void {
    this.node = node;
    this.nodeName = node.metadata?.name ?? '';
    this.allocatable = emptyResource();
    addResourceList(this.allocatable, node.status?.allocatable as Record<string, string> | undefined);
    this.images = new Map();
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) this.images.set(normalizeImageName(name), { size: img.sizeBytes ?? 0 });
    }
    this.generation++;
  }

  addPod(pod: Pod | PodInfo): PodInfo {
    const pi = pod instanceof PodInfo ? pod : new PodInfo(pod);
    this.pods.push(pi);
    if (pi.hasAffinity()) this.podsWithAffinity.push(pi);
    if (pi.requiredAntiAffinity.length > 0) this.podsWithRequiredAntiAffinity.push(pi);
    addResource(this.requested, pi.requests);
    addResource(this.nonZeroRequested, pi.nonZeroRequests);
    forEachHostPort(pi.pod, (ip, proto, port) => this.usedPorts.add(ip, proto, port));
    this.generation++;
    return pi;
  }

  /** Removes the pod with this key; false if it was not here. */
  removePod(key: string): boolean {
    const i = this.pods.findIndex((p) => p.key === key);
    if (i < 0) return false;
    const [pi] = this.pods.splice(i, 1);
    this.podsWithAffinity = this.podsWithAffinity.filter((p) => p !== pi);
    this.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.filter((p) => p !== pi);
    addResource(this.requested, pi.requests, -1);
    addResource(this.nonZeroRequested, pi.nonZeroRequests, -1);
    forEachHostPort(pi.pod, (ip, proto, port) => this.usedPorts.remove(ip, proto, port));
    this.generation++;
    return true;
  }

  /** An independent copy for "what if" simulations (preemption, nominated pods). */
  clone(): NodeInfo {
    const c = new NodeInfo();
    c.node = this.node;
    c.nodeName = this.nodeName;
    c.pods = [...this.pods];
    c.podsWithAffinity = [...this.podsWithAffinity];
    c.podsWithRequiredAntiAffinity = [...this.podsWithRequiredAntiAffinity];
    c.usedPorts = this.usedPorts.clone();
    c.requested = cloneResource(this.requested);
    c.nonZeroRequested = cloneResource(this.nonZeroRequested);
    c.allocatable = this.allocatable;
    c.images = this.images;
    c.generation = this.generation;
    return c;
  }
}

/** `nginx` → `nginx:latest`, as upstream normalizes image names for locality. */
export function normalizeImageName(name: string): string {
  if (name.includes('@')) return name;
  const lastSlash = name.lastIndexOf('/');
  return name.slice(lastSlash + 1).includes(':') ? name : `${name}:latest`;
}
