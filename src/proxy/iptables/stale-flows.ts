import type { ServicePort } from '../service-port.js';

/** A conntrack deletion filter: `conntrack -D -p udp` plus these matches. */
export interface FlowFilter {
  /** --orig-dst: the address the client sent to (a cluster, external or load balancer IP). */
  origDst?: string;
  /** --dport: the node port the client sent to. */
  dport?: number;
  /** --dst-nat: the endpoint the flow was translated to. */
  dstNat?: string;
}

/** What one sync programmed for a service port, remembered for the next. */
export interface ProgrammedPort {
  service: ServicePort;
  /** The endpoint IPs traffic could go to. */
  endpointIPs: ReadonlySet<string>;
}

function destinations(sp: ServicePort): string[] {
  return [...(sp.clusterIP ? [sp.clusterIP] : []), ...sp.externalIPs, ...(sp.loadBalancerIPs ?? [])];
}

/**
 * UDP flows conntrack would keep sending to the wrong place (upstream's
 * CleanStaleEntries): flows to an endpoint that is gone (UDP has no close, so
 * the entry would live on), and flows to a service IP or node port that had
 * no endpoints (their entries carry no DNAT and would keep missing the new
 * rules).
 */
export function staleUdpFlows(previous: ReadonlyMap<string, ProgrammedPort>, next: ReadonlyMap<string, ProgrammedPort>): FlowFilter[] {
  const out: FlowFilter[] = [];
  const seen = new Set<string>();
  const add = (f: FlowFilter): void => {
    const key = JSON.stringify(f);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(f);
  };
  for (const [key, now] of next) {
    if (now.service.protocol !== 'UDP') continue;
    const before = previous.get(key);
    if (!before) continue;
    if (before.endpointIPs.size === 0 && now.endpointIPs.size > 0) {
      for (const ip of destinations(now.service)) add({ origDst: ip });
      if (now.service.nodePort) add({ dport: now.service.nodePort });
    }
    for (const ep of before.endpointIPs) {
      if (now.endpointIPs.has(ep)) continue;
      for (const ip of destinations(before.service)) add({ origDst: ip, dstNat: ep });
      if (before.service.nodePort) add({ dport: before.service.nodePort, dstNat: ep });
    }
  }
  for (const [key, before] of previous) {
    if (before.service.protocol !== 'UDP' || next.has(key)) continue;
    for (const ep of before.endpointIPs) {
      for (const ip of destinations(before.service)) add({ origDst: ip, dstNat: ep });
      if (before.service.nodePort) add({ dport: before.service.nodePort, dstNat: ep });
    }
  }
  return out;
}
