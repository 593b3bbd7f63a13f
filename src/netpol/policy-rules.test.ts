import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import { formatCidr, parseIpv4Cidr, subtractCidrs } from './cidr.js';
import { KUBE_ROUTER_FORWARD, KUBE_ROUTER_INPUT, podFirewallChain, policyChain } from './chain-names.js';
import { computePolicyChains, renderRestore, type PolicyChains, type Rule } from './policy-rules.js';

const NODE = 'n1';
const POD_CIDR = '10.42.0.0/24';

function pod(ns: string, name: string, ip: string, labels: Record<string, string> = {}, o: { node?: string; ports?: { name: string; containerPort: number; protocol?: string }[] } = {}): Pod {
  return {
    metadata: { namespace: ns, name, labels },
    spec: { nodeName: o.node ?? NODE, containers: [{ name: 'c', ports: o.ports }] },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
  };
}

const ns = (name: string, labels: Record<string, string> = {}): Namespace => ({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });
const policy = (namespace: string, name: string, spec: NetworkPolicySpec): NetworkPolicy => ({ metadata: { namespace, name }, spec });

interface Packet {
  src: string;
  dst: string;
  protocol?: string;
  dport?: number;
  /** Sent by the node itself. */
  fromNode?: boolean;
  established?: boolean;
}

function inCidr(cidr: string, ip: string): boolean {
  const net = parseIpv4Cidr(cidr)!;
  const n = parseIpv4Cidr(ip)!;
  return n.base >= net.base && n.base < net.base + 2 ** (32 - net.bits);
}

function matches(r: Rule, p: Packet, mark: { allowed: boolean }): boolean {
  if (r.src && !inCidr(r.src, p.src)) return false;
  if (r.dst && !inCidr(r.dst, p.dst)) return false;
  if (r.protocol && r.protocol !== (p.protocol ?? 'tcp')) return false;
  if (r.dport) {
    const [lo, hi] = r.dport.split(':').map(Number);
    if (p.dport === undefined || p.dport < lo || p.dport > (hi ?? lo)) return false;
  }
  if (r.srcLocal && !p.fromNode) return false;
  if (r.ctstate && !p.established) return false;
  if (r.allowed !== undefined && r.allowed !== mark.allowed) return false;
  return true;
}

/** A tiny iptables: runs a packet through our chains (jump, RETURN, MARK, REJECT). */
function walk(chains: PolicyChains, chain: string, p: Packet, mark: { allowed: boolean }): 'reject' | 'return' {
  const rules = chains.get(chain);
  assert.ok(rules, `chain ${chain} exists`);
  for (const r of rules) {
    if (!matches(r, p, mark)) continue;
    const a = r.action;
    if ('jump' in a) {
      if (walk(chains, a.jump, p, mark) === 'reject') return 'reject';
    } else if ('setMark' in a) mark.allowed = a.setMark.startsWith('0x10000');
    else if ('reject' in a) return 'reject';
    else return 'return';
  }
  return 'return';
}

/** Whether a packet passes: pod-to-pod and pod-to-outside go through FORWARD, pod-to-node through INPUT. */
function passes(chains: PolicyChains, p: Packet, hook: 'forward' | 'input' = 'forward'): boolean {
  return walk(chains, hook === 'forward' ? KUBE_ROUTER_FORWARD : KUBE_ROUTER_INPUT, p, { allowed: false }) === 'return';
}

const NAMESPACES = [ns('default'), ns('web', { team: 'web' }), ns('trusted', { access: 'yes' }), ns('other')];
const SERVER = pod('web', 'server', '10.42.0.10', { app: 'server' }, { ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'UDP' }] });
const WEB_CLIENT = pod('web', 'client', '10.42.0.11', { app: 'client' });
const TRUSTED = pod('trusted', 'client', '10.42.0.20', { app: 'client' });
const OTHER = pod('other', 'client', '10.42.0.30', { app: 'client' });
const REMOTE = pod('trusted', 'remote', '10.42.1.5', { app: 'client' }, { node: 'n2' });
const PODS = [SERVER, WEB_CLIENT, TRUSTED, OTHER, REMOTE];

const compute = (...policies: NetworkPolicy[]) => computePolicyChains({ policies, pods: PODS, namespaces: NAMESPACES, nodeName: NODE, podCIDRs: [POD_CIDR] });
const ip = (p: Pod) => p.status!.podIP!;
const to = (from: Pod, dst: Pod, dport = 8080, protocol = 'tcp'): Packet => ({ src: ip(from), dst: ip(dst), dport, protocol });

describe('computePolicyChains', () => {
  it('leaves traffic alone while no policy selects a pod', () => {
    const chains = compute(policy('web', 'only-client', { podSelector: { matchLabels: { app: 'nobody' } }, policyTypes: ['Ingress'] }));
    assert.deepEqual([...chains.keys()].sort(), [KUBE_ROUTER_FORWARD, KUBE_ROUTER_INPUT]);
    assert.ok(passes(chains, to(OTHER, SERVER)));
  });

  it('default deny (empty podSelector, no rules) rejects new connections to every pod of the namespace, not replies, not the node, not egress', () => {
    const chains = compute(policy('web', 'deny', { podSelector: {}, policyTypes: ['Ingress'] }));
    assert.equal(passes(chains, to(OTHER, SERVER)), false);
    assert.equal(passes(chains, to(WEB_CLIENT, SERVER)), false);
    assert.equal(passes(chains, to(SERVER, WEB_CLIENT)), false, 'the client is in web too');
    assert.ok(passes(chains, { ...to(OTHER, SERVER), established: true }));
    assert.ok(passes(chains, { src: '192.168.1.1', dst: ip(SERVER), dport: 8080, fromNode: true }));
    assert.ok(passes(chains, to(SERVER, OTHER)), 'egress is not isolated');
    assert.ok(passes(chains, to(OTHER, TRUSTED)), 'other namespaces are not selected');
    assert.ok(chains.has(podFirewallChain('web', 'server')));
    assert.ok(chains.has(policyChain('web', 'deny', 'ingress')));
  });

  it('a namespaceSelector peer admits every pod of the matching namespaces, on any node', () => {
    const chains = compute(
      policy('web', 'deny', { podSelector: {}, policyTypes: ['Ingress'] }),
      policy('web', 'allow-trusted', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } } }] }], policyTypes: ['Ingress'] }),
    );
    assert.ok(passes(chains, to(TRUSTED, SERVER)));
    assert.ok(passes(chains, to(REMOTE, SERVER)));
    assert.equal(passes(chains, to(OTHER, SERVER)), false);
    assert.equal(passes(chains, to(WEB_CLIENT, SERVER)), false);
  });

  it('podSelector and namespaceSelector in one peer intersect; in two peers they unite', () => {
    const both = compute(policy('web', 'p', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } }, podSelector: { matchLabels: { app: 'remote-only' } } }] }] }));
    assert.equal(passes(both, to(TRUSTED, SERVER)), false);
    const REMOTE_ONLY = pod('trusted', 'r2', '10.42.0.21', { app: 'remote-only' });
    const withPod = computePolicyChains({ policies: [policy('web', 'p', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } }, podSelector: { matchLabels: { app: 'remote-only' } } }] }] })], pods: [...PODS, REMOTE_ONLY], namespaces: NAMESPACES, nodeName: NODE, podCIDRs: [POD_CIDR] });
    assert.ok(passes(withPod, to(REMOTE_ONLY, SERVER)));
    assert.equal(passes(withPod, to(TRUSTED, SERVER)), false);

    const either = compute(policy('web', 'p', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } } }, { podSelector: { matchLabels: { app: 'client' } } }] }] }));
    assert.ok(passes(either, to(TRUSTED, SERVER)));
    assert.ok(passes(either, to(WEB_CLIENT, SERVER)), 'a podSelector alone means the policy\'s namespace');
    assert.equal(passes(either, to(OTHER, SERVER)), false, 'app=client in another namespace');
  });

  it('ipBlock admits its CIDR except the exceptions', () => {
    const chains = compute(policy('web', 'p', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.42.0.0/16', except: ['10.42.0.16/28', '10.42.0.30/32'] } }] }] }));
    assert.ok(passes(chains, to(WEB_CLIENT, SERVER)));
    assert.equal(passes(chains, to(TRUSTED, SERVER)), false);
    assert.equal(passes(chains, to(OTHER, SERVER)), false);
    assert.ok(passes(chains, { src: '10.42.0.40', dst: ip(SERVER), dport: 80 }));
    assert.equal(passes(chains, { src: '192.168.0.1', dst: ip(SERVER), dport: 80 }), false);
  });

  it('ports: protocol, endPort ranges and named ports from the selected pods\' containers', () => {
    const chains = compute(policy('web', 'p', {
      podSelector: { matchLabels: { app: 'server' } },
      ingress: [{ ports: [{ protocol: 'TCP', port: 'http' }, { protocol: 'UDP', port: 'dns' }, { protocol: 'TCP', port: 9000, endPort: 9010 }, { protocol: 'UDP', port: 53 }] }],
    }));
    assert.ok(passes(chains, to(OTHER, SERVER, 8080)));
    assert.equal(passes(chains, to(OTHER, SERVER, 8081)), false);
    assert.ok(passes(chains, to(OTHER, SERVER, 5353, 'udp')));
    assert.equal(passes(chains, to(OTHER, SERVER, 5353, 'tcp')), false);
    assert.ok(passes(chains, to(OTHER, SERVER, 9000)));
    assert.ok(passes(chains, to(OTHER, SERVER, 9010)));
    assert.equal(passes(chains, to(OTHER, SERVER, 9011)), false);
    assert.ok(passes(chains, to(OTHER, SERVER, 53, 'udp')));
    assert.equal(passes(chains, to(OTHER, SERVER, 53, 'tcp')), false);
  });

  it('peers and ports of one rule are ANDed; rules and policies are ORed', () => {
    const chains = compute(
      policy('web', 'a', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { access: 'yes' } } }], ports: [{ port: 8080 }] }] }),
      policy('web', 'b', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 9090 }] }] }),
    );
    assert.ok(passes(chains, to(TRUSTED, SERVER, 8080)));
    assert.equal(passes(chains, to(TRUSTED, SERVER, 9090)), false);
    assert.ok(passes(chains, to(WEB_CLIENT, SERVER, 9090)));
    assert.equal(passes(chains, to(WEB_CLIENT, SERVER, 8080)), false);
  });

  it('egress: deny-all blocks a pod\'s new connections (to pods, outside, the node); rules and named ports of peer pods admit some', () => {
    const deny = compute(policy('other', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] }));
    assert.equal(passes(deny, to(OTHER, SERVER)), false);
    assert.equal(passes(deny, { src: ip(OTHER), dst: '8.8.8.8', dport: 53, protocol: 'udp' }), false);
    assert.equal(passes(deny, { src: ip(OTHER), dst: '192.168.251.1', dport: 53, protocol: 'udp' }, 'input'), false);
    assert.ok(passes(deny, { ...to(OTHER, SERVER), established: true }));
    assert.ok(passes(deny, to(SERVER, OTHER)), 'ingress to it is not isolated');

    const some = compute(policy('other', 'egress', { podSelector: {}, policyTypes: ['Egress'], egress: [
      { to: [{ namespaceSelector: { matchLabels: { team: 'web' } } }], ports: [{ port: 'http' }] },
      { to: [{ ipBlock: { cidr: '192.168.251.0/24' } }], ports: [{ protocol: 'UDP', port: 53 }] },
    ] }));
    assert.ok(passes(some, to(OTHER, SERVER, 8080)));
    assert.equal(passes(some, to(OTHER, SERVER, 9090)), false);
    assert.equal(passes(some, to(OTHER, WEB_CLIENT, 8080)), false, 'the client has no port named http');
    assert.ok(passes(some, { src: ip(OTHER), dst: '192.168.251.1', dport: 53, protocol: 'udp' }, 'input'));
  });

  it('allow-all (one empty rule) admits everything to the selected pods', () => {
    const chains = compute(policy('web', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }), policy('web', 'all', { podSelector: {}, ingress: [{}], egress: [{}], policyTypes: ['Ingress', 'Egress'] }));
    assert.ok(passes(chains, to(OTHER, SERVER, 1)));
    assert.ok(passes(chains, { src: ip(SERVER), dst: '1.1.1.1', dport: 443 }));
  });

  it('enforces only this node\'s pods on its pod network; policyTypes default from the rules', () => {
    const chains = computePolicyChains({
      policies: [policy('trusted', 'deny', { podSelector: {} })],
      pods: [...PODS, { ...pod('trusted', 'host', '192.168.251.1'), spec: { nodeName: NODE, hostNetwork: true, containers: [] } }],
      namespaces: NAMESPACES,
      nodeName: NODE,
      podCIDRs: [POD_CIDR],
    });
    assert.deepEqual([...chains.keys()].filter((c) => c.startsWith('KUBE-POD-FW-')), [podFirewallChain('trusted', 'client')]);
    assert.equal(passes(chains, to(OTHER, TRUSTED)), false);
    assert.ok(passes(chains, to(OTHER, REMOTE)), 'another node enforces its own pods');
  });

  it('renders stable chain names and iptables-restore text', () => {
    const text = renderRestore(compute(policy('web', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })), ['KUBE-POD-FW-OLDOLDOLDOLDOLDO']);
    assert.equal(text, renderRestore(compute(policy('web', 'deny', { podSelector: {}, policyTypes: ['Ingress'] })), ['KUBE-POD-FW-OLDOLDOLDOLDOLDO']));
    assert.match(text, /^\*filter\n:KUBE-ROUTER-INPUT - \[0:0\]\n:KUBE-ROUTER-FORWARD - \[0:0\]\n/);
    assert.match(text, /-A KUBE-ROUTER-FORWARD -m comment --comment "replies of allowed connections" -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN/);
    assert.match(text, new RegExp(`-A KUBE-ROUTER-FORWARD -d 10\\.42\\.0\\.10/32 -m comment --comment "traffic to pod web/server" -j ${podFirewallChain('web', 'server')}`));
    assert.match(text, /-A KUBE-POD-FW-[A-Z2-7]{16} -m comment --comment "web\/server: not allowed by any network policy" -m mark ! --mark 0x10000\/0x10000 -j REJECT --reject-with icmp-port-unreachable/);
    assert.match(text, /-X KUBE-POD-FW-OLDOLDOLDOLDOLDO\nCOMMIT\n$/);
    for (const c of text.split('\n').filter((l) => l.startsWith(':'))) assert.ok(c.split(' ')[0].length - 1 <= 28, c);
  });
});

describe('subtractCidrs', () => {
  it('covers the network without its exceptions with the fewest CIDRs', () => {
    const rest = subtractCidrs(parseIpv4Cidr('10.0.0.0/24')!, [parseIpv4Cidr('10.0.0.0/26')!, parseIpv4Cidr('10.0.0.200')!]).map(formatCidr);
    assert.deepEqual(rest, ['10.0.0.64/26', '10.0.0.128/26', '10.0.0.192/29', '10.0.0.201/32', '10.0.0.202/31', '10.0.0.204/30', '10.0.0.208/28', '10.0.0.224/27']);
    assert.deepEqual(subtractCidrs(parseIpv4Cidr('10.0.0.0/24')!, [parseIpv4Cidr('10.0.0.0/8')!]), []);
    assert.deepEqual(subtractCidrs(parseIpv4Cidr('0.0.0.0/0')!, []).map(formatCidr), ['0.0.0.0/0']);
    assert.equal(parseIpv4Cidr('fd00::/8'), undefined);
  });
});
