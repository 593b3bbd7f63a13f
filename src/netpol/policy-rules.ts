import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from 'kubernetes-types/networking/v1.js';
import { labelSelectorFromObject, type Selector } from '../machinery/labels/index.js';
import { cidrContains, formatCidr, parseIpv4Cidr, subtractCidrs, type Ipv4Net } from './cidr.js';
import { KUBE_ROUTER_FORWARD, KUBE_ROUTER_INPUT, podFirewallChain, policyChain, type Direction } from './chain-names.js';

/** The packet mark bit a policy chain sets when one of its rules admits the packet (kube-router's). */
export const ALLOW_MARK = '0x10000/0x10000';
const CLEAR_MARK = '0x0/0x10000';

export type Action = { jump: string } | { setMark: typeof ALLOW_MARK | typeof CLEAR_MARK } | { reject: true } | { return: true };

/** One filter-table rule, as data (rendered by `renderRule`, evaluated by the tests). */
export interface Rule {
  comment?: string;
  /** conntrack states, e.g. RELATED,ESTABLISHED */
  ctstate?: string;
  src?: string;
  dst?: string;
  /** -m addrtype --src-type LOCAL: the node itself sends it. */
  srcLocal?: boolean;
  protocol?: string;
  /** `80` or `80:90` */
  dport?: string;
  /** Matches when the allow bit is (not) set. */
  allowed?: boolean;
  action: Action;
}

export interface PolicyRulesInput {
  policies: readonly NetworkPolicy[];
  pods: readonly Pod[];
  namespaces: readonly Namespace[];
  /** Pods of this node are enforced … */
  nodeName: string;
  /** … when their IP is on this node's pod network (the node's podCIDRs), never the host network. */
  podCIDRs: readonly string[];
}

/** Every chain of ours in the filter table, with its rules in order (the top-level chains always present). */
export type PolicyChains = Map<string, Rule[]>;

interface PodInfo {
  pod: Pod;
  ip: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
}

const key = (ns: string, name: string) => `${ns}/${name}`;

/** Pods with an IPv4 address of their own that can send or receive: running or about to, not on the host network. */
function addressedPods(pods: readonly Pod[]): PodInfo[] {
  const out: PodInfo[] = [];
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (pod.spec?.hostNetwork || phase === 'Succeeded' || phase === 'Failed') continue;
    const ip = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)].find((a) => a && parseIpv4Cidr(a));
    if (!ip) continue;
    out.push({ pod, ip, namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', labels: pod.metadata?.labels ?? {} });
  }
  return out.sort((a, b) => (key(a.namespace, a.name) < key(b.namespace, b.name) ? -1 : 1));
}

/** The selector of a validated policy; an invalid one (never admitted by the API server) selects nothing. */
function selector(sel: Parameters<typeof labelSelectorFromObject>[0]): Selector | undefined {
  try {
    return labelSelectorFromObject(sel);
  } catch {
    return undefined;
  }
}

/** networking/v1 defaulting: Ingress always, Egress when there are egress rules. */
export function policyTypes(np: NetworkPolicy): Direction[] {
  const types = np.spec?.policyTypes ?? ['Ingress', ...(np.spec?.egress?.length ? ['Egress'] : [])];
  return types.flatMap((t): Direction[] => (t === 'Ingress' ? ['ingress'] : t === 'Egress' ? ['egress'] : []));
}

/** A rule's peers as addresses: `any` (no peers listed), or the pods and networks they name. */
type Peers = { any: true } | { any: false; pods: PodInfo[]; nets: Ipv4Net[] };

class PeerResolver {
  private readonly nsLabels: Map<string, Record<string, string>>;

  constructor(
    namespaces: readonly Namespace[],
    private readonly pods: readonly PodInfo[],
  ) {
    this.nsLabels = new Map(namespaces.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}]));
  }

  resolve(policyNamespace: string, peers: readonly NetworkPolicyPeer[] | undefined): Peers {
    if (!peers || peers.length === 0) return { any: true };
    const pods = new Map<string, PodInfo>();
    const nets: Ipv4Net[] = [];
    for (const peer of peers) {
      if (peer.ipBlock) {
        const net = parseIpv4Cidr(peer.ipBlock.cidr);
        if (!net) continue; // IPv6 blocks: the pod network is IPv4
        const except = (peer.ipBlock.except ?? []).flatMap((e) => parseIpv4Cidr(e) ?? []);
        nets.push(...subtractCidrs(net, except));
        continue;
      }
      if (!peer.podSelector && !peer.namespaceSelector) continue;
      const podSel = peer.podSelector ? selector(peer.podSelector) : undefined;
      const nsSel = peer.namespaceSelector ? selector(peer.namespaceSelector) : undefined;
      if ((peer.podSelector && !podSel) || (peer.namespaceSelector && !nsSel)) continue;
      for (const p of this.pods) {
        const nsOk = nsSel ? nsSel.matches(this.nsLabels.get(p.namespace) ?? {}) : p.namespace === policyNamespace;
        if (nsOk && (!podSel || podSel.matches(p.labels))) pods.set(key(p.namespace, p.name), p);
      }
    }
    return { any: false, pods: [...pods.values()], nets };
  }

  /** Pods a rule's peers cover (for named ports, which resolve against the destination pod). */
  podsOf(peers: Peers): PodInfo[] {
    if (peers.any) return [...this.pods];
    const inNets = this.pods.filter((p) => peers.nets.some((n) => cidrContains(n, p.ip)));
    return [...new Map([...peers.pods, ...inNets].map((p) => [key(p.namespace, p.name), p])).values()];
  }
}

/** The container port a named port means on a pod (with that protocol), if it has one. */
function namedPort(pod: Pod, name: string, protocol: string): number | undefined {
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === name && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/** Peer address matches: [{}] for any peer, [] for none. */
function peerMatches(peers: Peers, direction: Direction): Partial<Rule>[] {
  if (peers.any) return [{}];
  const addrs = [...new Set([...peers.pods.map((p) => `${p.ip}/32`), ...peers.nets.map(formatCidr)])].sort();
  return addrs.map((a) => (direction === 'ingress' ? { src: a } : { dst: a }));
}

function portRange(p: NetworkPolicyPort): string | undefined {
  if (p.port === undefined) return undefined;
  return p.endPort !== undefined && p.endPort > Number(p.port) ? `${p.port}:${p.endPort}` : String(p.port);
}

/**
 * The rules of one policy in one direction: each rule admits (sets the
 * allow mark on) traffic from any of its peers to any of its ports. A named
 * port resolves against the destination pod: the selected pods for ingress,
 * the peer pods for egress.
 */
function policyRules(np: NetworkPolicy, direction: Direction, resolver: PeerResolver, selected: readonly PodInfo[]): Rule[] {
  const ns = np.metadata?.namespace ?? '';
  const name = np.metadata?.name ?? '';
  const rules: Rule[] = [];
  const list = direction === 'ingress' ? (np.spec?.ingress ?? []) : (np.spec?.egress ?? []);
  list.forEach((r, i) => {
    const peers = resolver.resolve(ns, direction === 'ingress' ? (r as { from?: NetworkPolicyPeer[] }).from : (r as { to?: NetworkPolicyPeer[] }).to);
    const comment = `${ns}/${name} ${direction} rule ${i}`;
    const admit = { setMark: ALLOW_MARK } as const;
    const ports = r.ports ?? [];
    const matches = peerMatches(peers, direction);
    if (ports.length === 0) {
      for (const m of matches) rules.push({ comment, ...m, action: admit });
      return;
    }
    for (const port of ports) {
      const protocol = port.protocol ?? 'TCP';
      const proto = protocol.toLowerCase();
      if (typeof port.port === 'string') {
        if (direction === 'ingress') {
          for (const p of selected) {
            const n = namedPort(p.pod, port.port, protocol);
            if (n !== undefined) for (const m of matches) rules.push({ comment, ...m, dst: `${p.ip}/32`, protocol: proto, dport: String(n), action: admit });
          }
        } else {
          for (const p of resolver.podsOf(peers)) {
            const n = namedPort(p.pod, port.port, protocol);
            if (n !== undefined) rules.push({ comment, dst: `${p.ip}/32`, protocol: proto, dport: String(n), action: admit });
          }
        }
        continue;
      }
      const dport = portRange(port);
      for (const m of matches) rules.push({ comment, ...m, protocol: proto, ...(dport ? { dport } : {}), action: admit });
    }
  });
  return rules;
}

function isLocal(p: PodInfo, nodeName: string, nets: readonly Ipv4Net[]): boolean {
  return p.pod.spec?.nodeName === nodeName && nets.some((n) => cidrContains(n, p.ip));
}

/**
 * From policies, pods and namespaces to the filter-table chains that enforce
 * them for this node's pods (the pure core of the controller, as
 * kube-router's): a pod selected by some policy gets a firewall chain,
 * jumped to for traffic to it (when a policy isolates it for ingress) and
 * from it (egress); the chain clears the allow mark, runs the chain of each
 * policy selecting it, and rejects what none admitted. Traffic of
 * established connections, of unselected pods, and from the node to its
 * pods (upstream: a pod cannot block its node) is left alone.
 */
export function computePolicyChains(input: PolicyRulesInput): PolicyChains {
  const pods = addressedPods(input.pods);
  const resolver = new PeerResolver(input.namespaces, pods);
  const nets = input.podCIDRs.flatMap((c) => parseIpv4Cidr(c) ?? []);
  const local = pods.filter((p) => isLocal(p, input.nodeName, nets));
  const chains: PolicyChains = new Map();
  const established: Rule = { comment: 'replies of allowed connections', ctstate: 'RELATED,ESTABLISHED', action: { return: true } };
  const forward: Rule[] = [established];
  const inputRules: Rule[] = [established];
  chains.set(KUBE_ROUTER_INPUT, inputRules);
  chains.set(KUBE_ROUTER_FORWARD, forward);

  const policies = [...input.policies].sort((a, b) => (key(a.metadata?.namespace ?? '', a.metadata?.name ?? '') < key(b.metadata?.namespace ?? '', b.metadata?.name ?? '') ? -1 : 1));
  // which local pods each policy selects, and which policies isolate each local pod
  const selectedBy = new Map<NetworkPolicy, PodInfo[]>();
  const isolating = new Map<string, { ingress: NetworkPolicy[]; egress: NetworkPolicy[] }>();
  for (const np of policies) {
    const ns = np.metadata?.namespace ?? '';
    const sel = selector(np.spec?.podSelector ?? {});
    if (!sel) continue;
    const selected = local.filter((p) => p.namespace === ns && sel.matches(p.labels));
    if (selected.length === 0) continue;
    selectedBy.set(np, selected);
    for (const p of selected) {
      const k = key(p.namespace, p.name);
      const entry = isolating.get(k) ?? { ingress: [], egress: [] };
      for (const d of policyTypes(np)) entry[d].push(np);
      isolating.set(k, entry);
    }
  }

  for (const [np, selected] of selectedBy) {
    for (const d of policyTypes(np)) chains.set(policyChain(np.metadata?.namespace ?? '', np.metadata?.name ?? '', d), policyRules(np, d, resolver, selected));
  }

  for (const p of local) {
    const entry = isolating.get(key(p.namespace, p.name));
    if (!entry || entry.ingress.length + entry.egress.length === 0) continue;
    const chain = podFirewallChain(p.namespace, p.name);
    const podName = key(p.namespace, p.name);
    const ip = `${p.ip}/32`;
    const rules: Rule[] = [{ action: { setMark: CLEAR_MARK } }];
    if (entry.ingress.length > 0) {
      forward.push({ comment: `traffic to pod ${podName}`, dst: ip, action: { jump: chain } });
      rules.push({ comment: 'the node may always reach its pods', dst: ip, srcLocal: true, action: { setMark: ALLOW_MARK } });
      for (const np of entry.ingress) rules.push({ dst: ip, action: { jump: policyChain(np.metadata?.namespace ?? '', np.metadata?.name ?? '', 'ingress') } });
    }
    if (entry.egress.length > 0) {
      forward.push({ comment: `traffic from pod ${podName}`, src: ip, action: { jump: chain } });
      inputRules.push({ comment: `traffic from pod ${podName}`, src: ip, action: { jump: chain } });
      for (const np of entry.egress) rules.push({ src: ip, action: { jump: policyChain(np.metadata?.namespace ?? '', np.metadata?.name ?? '', 'egress') } });
    }
    rules.push({ comment: `${podName}: not allowed by any network policy`, allowed: false, action: { reject: true } });
    rules.push({ action: { setMark: CLEAR_MARK } });
    chains.set(chain, rules);
  }
  return chains;
}

/** One rule as iptables-restore takes it (without `-A <chain>`). */
export function renderRule(r: Rule): string {
  const parts: string[] = [];
  if (r.src) parts.push('-s', r.src);
  if (r.dst) parts.push('-d', r.dst);
  if (r.protocol) parts.push('-p', r.protocol);
  if (r.comment) parts.push('-m', 'comment', '--comment', JSON.stringify(r.comment));
  if (r.ctstate) parts.push('-m', 'conntrack', '--ctstate', r.ctstate);
  if (r.srcLocal) parts.push('-m', 'addrtype', '--src-type', 'LOCAL');
  if (r.dport) parts.push('-m', r.protocol ?? 'tcp', '--dport', r.dport);
  if (r.allowed !== undefined) parts.push('-m', 'mark', ...(r.allowed ? [] : ['!']), '--mark', ALLOW_MARK);
  const a = r.action;
  if ('jump' in a) parts.push('-j', a.jump);
  else if ('setMark' in a) parts.push('-j', 'MARK', '--set-xmark', a.setMark);
  else if ('reject' in a) parts.push('-j', 'REJECT', '--reject-with', 'icmp-port-unreachable');
  else parts.push('-j', 'RETURN');
  return parts.join(' ');
}

/** iptables-restore --noflush input: every chain of ours rewritten, `stale` ones flushed and deleted. */
export function renderRestore(chains: PolicyChains, stale: readonly string[]): string {
  const lines = ['*filter'];
  for (const c of [...chains.keys(), ...stale]) lines.push(`:${c} - [0:0]`);
  for (const [c, rules] of chains) for (const r of rules) lines.push(`-A ${c} ${renderRule(r)}`);
  for (const c of stale) lines.push(`-X ${c}`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}
