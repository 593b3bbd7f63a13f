import type { EndpointsMap } from '../proxy-mode.js';
import type { ServiceEndpoint, ServicePort } from '../service-port.js';
import { usableEndpoints } from '../usable-endpoints.js';
import { endpointChain, serviceChains, servicePortName } from './chain-names.js';

/** The fixed chains, named as upstream. */
export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
export const KUBE_FIREWALL = 'KUBE-FIREWALL';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';

/** Upstream's --iptables-masquerade-bit 14. */
export const MASQUERADE_MARK = '0x4000';

/**
 * Which traffic comes from this node's pods (upstream's LocalTrafficDetector):
 * the match arguments for "local" and "not local", or none when unknown.
 */
export interface LocalDetector {
  ifLocal: readonly string[];
  ifNotLocal: readonly string[];
}

/** Pods are the ones whose traffic enters through the pod bridge (upstream's BridgeInterface mode). */
export function bridgeDetector(bridge: string): LocalDetector {
  return { ifLocal: ['-i', bridge], ifNotLocal: ['!', '-i', bridge] };
}

/** Pods are the ones inside the cluster CIDR (upstream's ClusterCIDR mode). */
export function cidrDetector(cidr: string): LocalDetector {
  return { ifLocal: ['-s', cidr], ifNotLocal: ['!', '-s', cidr] };
}

export interface RuleInput {
  services: readonly ServicePort[];
  endpoints: EndpointsMap;
  /** This node, for Local traffic policies. */
  nodeName: string;
  localDetector?: LocalDetector;
  /** Masquerade all traffic to cluster IPs (upstream --masquerade-all). */
  masqueradeAll?: boolean;
  /** Node ports answer on these addresses only; all local addresses when absent. */
  nodePortAddresses?: readonly string[];
  /** Node ports also on 127.0.0.0/8 (needs route_localnet), as upstream's default. */
  localhostNodePorts?: boolean;
  /** MASQUERADE --random-fully (iptables ≥ 1.6.2). */
  randomFully?: boolean;
  /**
   * Service port keys whose per-service chains are unchanged since the last
   * successful restore: a partial sync leaves those chains out of the input
   * (iptables-restore --noflush keeps them). Absent for a full sync.
   */
  unchanged?: ReadonlySet<string>;
}

/** The restore input, table by table, plus every per-service NAT chain the rules use. */
export interface RuleSet {
  filterChains: string[];
  filterRules: string[];
  natChains: string[];
  natRules: string[];
  /** Per-service NAT chains in use (written or, in a partial sync, kept). */
  activeNatChains: Set<string>;
}

const chainLine = (chain: string): string => `:${chain} - [0:0]`;

/** One rule line; arguments with spaces are quoted as iptables-save prints them. */
function line(...args: (string | readonly string[])[]): string {
  return args.flat().map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ');
}

/** Upstream's probability format: ten decimals. */
export function probability(n: number): string {
  return (1 / n).toFixed(10);
}

/**
 * Builds kube-proxy's iptables rules for the whole desired state, with
 * upstream's chain layout: KUBE-SERVICES captures cluster IPs, external IPs
 * and load balancer IPs, then hands local destinations to KUBE-NODEPORTS;
 * each service port gets KUBE-SVC (cluster policy), KUBE-SVL (local policy)
 * and KUBE-EXT (external destinations) chains choosing among KUBE-SEP
 * endpoint chains with `statistic --mode random`; traffic that needs SNAT is
 * marked in KUBE-MARK-MASQ and masqueraded in KUBE-POSTROUTING; services
 * without usable endpoints are REJECTed (or DROPped, for Local policies) in
 * the filter table.
 */
export function buildRules(input: RuleInput): RuleSet {
  const out: RuleSet = { filterChains: [], filterRules: [], natChains: [], natRules: [], activeNatChains: new Set() };
  for (const c of [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL]) out.filterChains.push(chainLine(c));
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) out.natChains.push(chainLine(c));

  const mark = MASQUERADE_MARK;
  out.natRules.push(
    line('-A', KUBE_POSTROUTING, '-m', 'mark', '!', '--mark', `${mark}/${mark}`, '-j', 'RETURN'),
    line('-A', KUBE_POSTROUTING, '-j', 'MARK', '--xor-mark', mark),
    line('-A', KUBE_POSTROUTING, '-m', 'comment', '--comment', 'kubernetes service traffic requiring SNAT', '-j', 'MASQUERADE', ...(input.randomFully ? ['--random-fully'] : [])),
    line('-A', KUBE_MARK_MASQ, '-j', 'MARK', '--or-mark', mark),
  );
  const localhostNodePorts = input.localhostNodePorts ?? true;
  if (localhostNodePorts) {
    out.filterChains.push(chainLine(KUBE_FIREWALL));
    out.filterRules.push(line('-A', KUBE_FIREWALL, '-m', 'comment', '--comment', 'block incoming localnet connections', '-d', '127.0.0.0/8', '!', '-s', '127.0.0.0/8', '-m', 'conntrack', '!', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'DROP'));
  }

  const sorted = [...input.services].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const sp of sorted) if (sp.clusterIP) writeServicePort(out, input, sp, sp.clusterIP);

  if (!input.nodePortAddresses) {
    out.natRules.push(line('-A', KUBE_SERVICES, '-m', 'comment', '--comment', 'kubernetes service nodeports; NOTE: this must be the last rule in this chain', '-m', 'addrtype', '--dst-type', 'LOCAL', ...(localhostNodePorts ? [] : ['!', '-d', '127.0.0.0/8']), '-j', KUBE_NODEPORTS));
  } else {
    for (const ip of input.nodePortAddresses) {
      if (ip.startsWith('127.') && !localhostNodePorts) continue;
      out.natRules.push(line('-A', KUBE_SERVICES, '-m', 'comment', '--comment', 'kubernetes service nodeports; NOTE: this must be the last rule in this chain', '-d', ip, '-j', KUBE_NODEPORTS));
    }
  }

  out.filterRules.push(
    line('-A', KUBE_FORWARD, '-m', 'conntrack', '--ctstate', 'INVALID', '-j', 'DROP'),
    line('-A', KUBE_FORWARD, '-m', 'comment', '--comment', 'kubernetes forwarding rules', '-m', 'mark', '--mark', `${mark}/${mark}`, '-j', 'ACCEPT'),
    line('-A', KUBE_FORWARD, '-m', 'comment', '--comment', 'kubernetes forwarding conntrack rule', '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT'),
  );
  return out;
}

function writeServicePort(out: RuleSet, input: RuleInput, sp: ServicePort, clusterIP: string): void {
  const proto = sp.protocol.toLowerCase();
  const name = servicePortName(sp.namespace, sp.name, sp.portName);
  const chains = serviceChains(name, proto);
  const all = input.endpoints.get(sp.key) ?? [];
  const clusterEndpoints = usableEndpoints(all).sort(byAddress);
  const localEndpoints = usableEndpoints(all, { nodeName: input.nodeName }).sort(byAddress);
  const lbIPs = sp.loadBalancerIPs ?? [];
  const externallyAccessible = sp.nodePort !== undefined || sp.externalIPs.length > 0 || lbIPs.length > 0;
  const hasEndpoints = clusterEndpoints.length > 0;
  // even with an external Local policy the cluster chain serves the short-circuit for traffic from this node
  const usesClusterChain = hasEndpoints && (!sp.internalLocal || externallyAccessible);
  const usesLocalChain = localEndpoints.length > 0 && (sp.internalLocal || (externallyAccessible && sp.externalLocal));
  const internalChain = sp.internalLocal ? chains.local : chains.cluster;
  const hasInternal = hasEndpoints && (!sp.internalLocal || localEndpoints.length > 0);
  const externalPolicyChain = sp.externalLocal ? chains.local : chains.cluster;
  const hasExternal = hasEndpoints && (!sp.externalLocal || localEndpoints.length > 0);
  const usesExternalChain = hasEndpoints && externallyAccessible;

  const noEndpoints = `${name} has no endpoints`;
  const noLocal = `${name} has no local endpoints`;
  const internalFilter = hasEndpoints ? { target: 'DROP', comment: noLocal } : { target: 'REJECT', comment: noEndpoints };
  const externalFilter = internalFilter;
  const match = ['-m', proto, '-p', proto];
  const port = String(sp.port);

  // Capture the cluster IP.
  if (hasInternal) out.natRules.push(line('-A', KUBE_SERVICES, '-m', 'comment', '--comment', `${name} cluster IP`, match, '-d', clusterIP, '--dport', port, '-j', internalChain));
  else out.filterRules.push(line('-A', KUBE_SERVICES, '-m', 'comment', '--comment', internalFilter.comment, match, '-d', clusterIP, '--dport', port, '-j', internalFilter.target));

  // Capture external IPs and load balancer IPs.
  for (const [ips, what] of [[sp.externalIPs, 'external IP'], [lbIPs, 'loadbalancer IP']] as const) {
    for (const ip of ips) {
      if (hasEndpoints) out.natRules.push(line('-A', KUBE_SERVICES, '-m', 'comment', '--comment', `${name} ${what}`, match, '-d', ip, '--dport', port, '-j', chains.external));
      if (!hasExternal) out.filterRules.push(line('-A', KUBE_EXTERNAL_SERVICES, '-m', 'comment', '--comment', externalFilter.comment, match, '-d', ip, '--dport', port, '-j', externalFilter.target));
    }
  }

  // Capture the node port.
  if (sp.nodePort !== undefined) {
    const nodePort = String(sp.nodePort);
    if (hasEndpoints) out.natRules.push(line('-A', KUBE_NODEPORTS, '-m', 'comment', '--comment', name, match, '--dport', nodePort, '-j', chains.external));
    if (!hasExternal) out.filterRules.push(line('-A', KUBE_EXTERNAL_SERVICES, '-m', 'comment', '--comment', externalFilter.comment, '-m', 'addrtype', '--dst-type', 'LOCAL', match, '--dport', nodePort, '-j', externalFilter.target));
  }

  const active = (chain: string): void => void out.activeNatChains.add(chain);
  // A partial sync writes only the chains of service ports that changed.
  const skip = input.unchanged?.has(sp.key) ?? false;
  const natChains: string[] = skip ? [] : out.natChains;
  const natRules: string[] = skip ? [] : out.natRules;

  if (hasInternal) {
    const args = ['-m', 'comment', '--comment', `${name} cluster IP`, ...match, '-d', clusterIP, '--dport', port];
    if (input.masqueradeAll) natRules.push(line('-A', internalChain, args, '-j', KUBE_MARK_MASQ));
    else if (input.localDetector) natRules.push(line('-A', internalChain, args, input.localDetector.ifNotLocal, '-j', KUBE_MARK_MASQ));
  }

  if (usesExternalChain) {
    natChains.push(chainLine(chains.external));
    active(chains.external);
    if (!sp.externalLocal) {
      natRules.push(line('-A', chains.external, '-m', 'comment', '--comment', `masquerade traffic for ${name} external destinations`, '-j', KUBE_MARK_MASQ));
    } else {
      // Pods and the node itself reach an external destination as if from outside: cluster policy, source kept for pods.
      if (input.localDetector) natRules.push(line('-A', chains.external, '-m', 'comment', '--comment', `pod traffic for ${name} external destinations`, input.localDetector.ifLocal, '-j', chains.cluster));
      natRules.push(line('-A', chains.external, '-m', 'comment', '--comment', `masquerade LOCAL traffic for ${name} external destinations`, '-m', 'addrtype', '--src-type', 'LOCAL', '-j', KUBE_MARK_MASQ));
      natRules.push(line('-A', chains.external, '-m', 'comment', '--comment', `route LOCAL traffic for ${name} external destinations`, '-m', 'addrtype', '--src-type', 'LOCAL', '-j', chains.cluster));
    }
    if (hasExternal) natRules.push(line('-A', chains.external, '-j', externalPolicyChain));
  }

  if (usesClusterChain) {
    natChains.push(chainLine(chains.cluster));
    active(chains.cluster);
    writeEndpointChoice(natRules, name, proto, sp, chains.cluster, clusterEndpoints);
  }
  if (usesLocalChain) {
    natChains.push(chainLine(chains.local));
    active(chains.local);
    writeEndpointChoice(natRules, name, proto, sp, chains.local, localEndpoints);
  }

  const reachable = new Map<string, ServiceEndpoint>();
  if (usesClusterChain) for (const e of clusterEndpoints) reachable.set(`${e.ip}:${e.port}`, e);
  if (usesLocalChain) for (const e of localEndpoints) reachable.set(`${e.ip}:${e.port}`, e);
  for (const [address, e] of reachable) {
    const chain = endpointChain(name, proto, address);
    natChains.push(chainLine(chain));
    active(chain);
    const head = ['-A', chain, '-m', 'comment', '--comment', name];
    // Traffic from the endpoint to its own service comes back to it: SNAT so the reply returns through us (hairpin).
    natRules.push(line(head, '-s', e.ip, '-j', KUBE_MARK_MASQ));
    const affinity = sp.affinityTimeoutSeconds !== undefined ? ['-m', 'recent', '--name', chain, '--set'] : [];
    natRules.push(line(head, affinity, match, '-j', 'DNAT', '--to-destination', address));
  }
}

function byAddress(a: ServiceEndpoint, b: ServiceEndpoint): number {
  const x = `${a.ip}:${a.port}`;
  const y = `${b.ip}:${b.port}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Session affinity first (a client seen recently goes back to its endpoint), then a random pick. */
function writeEndpointChoice(rules: string[], name: string, proto: string, sp: ServicePort, chain: string, endpoints: readonly ServiceEndpoint[]): void {
  const targets = endpoints.map((e) => ({ address: `${e.ip}:${e.port}`, chain: endpointChain(name, proto, `${e.ip}:${e.port}`) }));
  if (sp.affinityTimeoutSeconds !== undefined) {
    for (const t of targets) {
      rules.push(line('-A', chain, '-m', 'comment', '--comment', `${name} -> ${t.address}`, '-m', 'recent', '--name', t.chain, '--rcheck', '--seconds', String(sp.affinityTimeoutSeconds), '--reap', '-j', t.chain));
    }
  }
  targets.forEach((t, i) => {
    const pick = i < targets.length - 1 ? ['-m', 'statistic', '--mode', 'random', '--probability', probability(targets.length - i)] : [];
    rules.push(line('-A', chain, '-m', 'comment', '--comment', `${name} -> ${t.address}`, pick, '-j', t.chain));
  });
}

/**
 * The iptables-restore input (for --noflush): both tables, plus chains to
 * delete (declared, which flushes them, then removed with -X).
 */
export function renderRestore(rules: RuleSet, deleteNatChains: Iterable<string> = []): string {
  const del = [...deleteNatChains];
  return [
    '*filter', ...rules.filterChains, ...rules.filterRules, 'COMMIT',
    '*nat', ...rules.natChains, ...del.map(chainLine), ...rules.natRules, ...del.map((c) => `-X ${c}`), 'COMMIT',
    '',
  ].join('\n');
}
