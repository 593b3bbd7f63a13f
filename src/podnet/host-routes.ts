import type { Node } from 'kubernetes-types/core/v1.js';
import { isIPv4 } from 'node:net';

/** A route to another node's pod CIDR through that node's address on the shared link. */
export interface PodRoute {
  /** The other node's pod CIDR, e.g. `10.42.1.0/24`. */
  dst: string;
  /** That node's InternalIP. */
  via: string;
}

/** A node's IPv4 pod CIDRs (`spec.podCIDRs`, else `spec.podCIDR`). */
export function podCIDRsOf(node: Node): string[] {
  const cidrs = node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
  return cidrs.filter((c) => isIPv4(c.split('/')[0] ?? ''));
}

/** A node's first IPv4 InternalIP. */
export function internalIPOf(node: Node): string | undefined {
  return node.status?.addresses?.find((a) => a.type === 'InternalIP' && isIPv4(a.address))?.address;
}

/**
 * flannel's host-gw backend: every other node that has a pod CIDR and an
 * InternalIP gets a route to its pods through that address (the nodes share
 * a link). Nodes still without either are left out until they have them.
 * Sorted by destination, so equal states compare equal.
 */
export function desiredRoutes(nodes: readonly Node[], selfName: string): PodRoute[] {
  const out: PodRoute[] = [];
  for (const node of nodes) {
    if (node.metadata?.name === selfName) continue;
    const via = internalIPOf(node);
    if (!via) continue;
    for (const dst of podCIDRsOf(node)) out.push({ dst, via });
  }
  return out.sort((a, b) => (a.dst < b.dst ? -1 : a.dst > b.dst ? 1 : 0));
}
