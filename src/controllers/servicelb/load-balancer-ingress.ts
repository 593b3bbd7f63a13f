import type { LoadBalancerIngress, Node, Service } from 'kubernetes-types/core/v1.js';

/** skiff's own loadBalancerClass: Services naming it (or none) are ServiceLB's; any other class belongs to another controller. */
export const SERVICELB_CLASS = 'skiff.io/servicelb';

/** Whether ServiceLB serves this Service: type LoadBalancer, without a class or with ours. */
export function servedByServiceLB(svc: Service): boolean {
  const cls = svc.spec?.loadBalancerClass;
  return svc.spec?.type === 'LoadBalancer' && (cls === undefined || cls === SERVICELB_CLASS);
}

function ready(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * The ingress points of a ServiceLB Service, as k3s's ServiceLB reports
 * them: the InternalIP of every Ready node (kube-proxy serves the ports on
 * them), sorted; every node's when none is Ready yet.
 */
export function loadBalancerIngress(nodes: readonly Node[]): LoadBalancerIngress[] {
  const candidates = nodes.some(ready) ? nodes.filter(ready) : nodes;
  const ips = new Set<string>();
  for (const n of candidates) for (const a of n.status?.addresses ?? []) if (a.type === 'InternalIP' && a.address) ips.add(a.address);
  return [...ips].sort().map((ip) => ({ ip, ipMode: 'VIP' }));
}

/** Whether two ingress lists say the same. */
export function sameIngress(a: readonly LoadBalancerIngress[], b: readonly LoadBalancerIngress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.ip === b[i].ip && x.hostname === b[i].hostname && (x.ipMode ?? 'VIP') === (b[i].ipMode ?? 'VIP'));
}
