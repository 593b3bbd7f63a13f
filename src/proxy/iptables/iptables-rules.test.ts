import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEndpoint, ServicePort } from '../service-port.js';
import { endpointChain, serviceChains } from './chain-names.js';
import { bridgeDetector, buildRules, probability, renderRestore } from './iptables-rules.js';

const svc = (o: Partial<ServicePort> = {}): ServicePort => ({
  key: 'ns1/svc1:p80/TCP', namespace: 'ns1', name: 'svc1', portName: 'p80', protocol: 'TCP', clusterIP: '172.30.0.41', port: 80, externalIPs: [], externalLocal: false, internalLocal: false, ...o,
});
const ep = (ip: string, o: Partial<ServiceEndpoint> = {}): ServiceEndpoint => ({ ip, port: 80, ready: true, serving: true, terminating: false, nodeName: 'node1', ...o });
const SVC = 'KUBE-SVC-XPGD46QRK7WJZT7O';
const SEP1 = 'KUBE-SEP-SXIVWICOYRO3J4NJ';

function rules(services: ServicePort[], eps: Record<string, ServiceEndpoint[]>, extra: Partial<Parameters<typeof buildRules>[0]> = {}) {
  return buildRules({ services, endpoints: new Map(Object.entries(eps)), nodeName: 'node1', localDetector: bridgeDetector('skiff0'), ...extra });
}

describe('buildRules', () => {
  it('writes upstream\'s rules for a ClusterIP service with one endpoint', () => {
    const r = rules([svc()], { 'ns1/svc1:p80/TCP': [ep('10.180.0.1')] });
    assert.deepEqual(r.natChains, [':KUBE-SERVICES - [0:0]', ':KUBE-NODEPORTS - [0:0]', ':KUBE-POSTROUTING - [0:0]', ':KUBE-MARK-MASQ - [0:0]', `:${SVC} - [0:0]`, `:${SEP1} - [0:0]`]);
    assert.deepEqual(r.natRules, [
      '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
      '-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000',
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE',
      '-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000',
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j ${SVC}`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -i skiff0 -j KUBE-MARK-MASQ`,
      `-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j ${SEP1}`,
      `-A ${SEP1} -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ`,
      `-A ${SEP1} -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80`,
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
    ]);
    assert.deepEqual([...r.activeNatChains].sort(), [SEP1, SVC]);
    assert.ok(r.filterRules.includes('-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'));
    assert.ok(r.filterRules.includes('-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT'));
  });

  it('picks among endpoints with statistic mode random, 1/n then 1/(n-1)…, the last unconditionally', () => {
    const r = rules([svc()], { 'ns1/svc1:p80/TCP': [ep('10.0.0.3'), ep('10.0.0.1'), ep('10.0.0.2')] });
    const picks = r.natRules.filter((l) => l.startsWith(`-A ${SVC}`) && l.includes('->'));
    assert.deepEqual(picks.map((l) => /--probability (\S+)/.exec(l)?.[1] ?? 'last'), ['0.3333333333', '0.5000000000', 'last']);
    assert.match(picks[0], /-> 10\.0\.0\.1:80" -m statistic --mode random --probability 0\.3333333333 -j KUBE-SEP-/);
    assert.equal(probability(4), '0.2500000000');
  });

  it('REJECTs a service without endpoints in the filter table, and its node port and external IPs too', () => {
    const r = rules([svc({ nodePort: 30080, externalIPs: ['192.0.2.10'] })], {});
    assert.deepEqual(r.filterRules.filter((l) => l.includes('has no endpoints')), [
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 192.0.2.10 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT',
    ]);
    assert.equal(r.natRules.filter((l) => l.includes('ns1/svc1')).length, 0);
    assert.equal(r.activeNatChains.size, 0);
  });

  it('sends node ports and external IPs through KUBE-EXT, masqueraded with the Cluster policy', () => {
    const ext = serviceChains('ns1/svc1:p80', 'tcp').external;
    const r = rules([svc({ nodePort: 30080, externalIPs: ['192.0.2.10'] })], { 'ns1/svc1:p80/TCP': [ep('10.180.0.1')] });
    assert.ok(r.natRules.includes(`-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 external IP" -m tcp -p tcp -d 192.0.2.10 --dport 80 -j ${ext}`));
    assert.ok(r.natRules.includes(`-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 30080 -j ${ext}`));
    assert.deepEqual(r.natRules.filter((l) => l.startsWith(`-A ${ext}`)), [
      `-A ${ext} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ`,
      `-A ${ext} -j ${SVC}`,
    ]);
  });

  it('keeps the source with externalTrafficPolicy Local: pods and the node short-circuit to the cluster chain, others go to the local endpoints', () => {
    const { external: ext, local: svl } = serviceChains('ns1/svc1:p80', 'tcp');
    const r = rules([svc({ nodePort: 30080, externalLocal: true })], { 'ns1/svc1:p80/TCP': [ep('10.180.0.1'), ep('10.180.1.1', { nodeName: 'node2' })] });
    assert.deepEqual(r.natRules.filter((l) => l.startsWith(`-A ${ext}`)), [
      `-A ${ext} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -i skiff0 -j ${SVC}`,
      `-A ${ext} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${ext} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j ${SVC}`,
      `-A ${ext} -j ${svl}`,
    ]);
    const local = r.natRules.filter((l) => l.startsWith(`-A ${svl}`));
    assert.equal(local.length, 1);
    assert.match(local[0], /-> 10\.180\.0\.1:80"/);
    // cluster chain has both endpoints
    assert.equal(r.natRules.filter((l) => l.startsWith(`-A ${SVC}`) && l.includes('->')).length, 2);
  });

  it('DROPs external traffic when a Local policy has no endpoint on this node', () => {
    const r = rules([svc({ nodePort: 30080, externalLocal: true })], { 'ns1/svc1:p80/TCP': [ep('10.180.1.1', { nodeName: 'node2' })] });
    assert.ok(r.filterRules.includes('-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP'));
    const ri = rules([svc({ internalLocal: true })], { 'ns1/svc1:p80/TCP': [ep('10.180.1.1', { nodeName: 'node2' })] });
    assert.ok(ri.filterRules.includes('-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j DROP'));
    assert.equal(ri.activeNatChains.size, 0);
  });

  it('routes the cluster IP to this node\'s endpoints only with internalTrafficPolicy Local', () => {
    const svl = serviceChains('ns1/svc1:p80', 'tcp').local;
    const r = rules([svc({ internalLocal: true })], { 'ns1/svc1:p80/TCP': [ep('10.180.0.1'), ep('10.180.1.1', { nodeName: 'node2' })] });
    assert.ok(r.natRules.some((l) => l.startsWith('-A KUBE-SERVICES') && l.endsWith(`-j ${svl}`)));
    assert.ok(!r.activeNatChains.has(SVC));
  });

  it('adds recent-module rules for ClientIP affinity', () => {
    const r = rules([svc({ affinityTimeoutSeconds: 10800 })], { 'ns1/svc1:p80/TCP': [ep('10.180.0.1')] });
    assert.ok(r.natRules.includes(`-A ${SVC} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m recent --name ${SEP1} --rcheck --seconds 10800 --reap -j ${SEP1}`));
    assert.ok(r.natRules.includes(`-A ${SEP1} -m comment --comment ns1/svc1:p80 -m recent --name ${SEP1} --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80`));
  });

  it('uses serving terminating endpoints only when none is ready, and skips headless services', () => {
    const r = rules([svc(), svc({ key: 'ns1/headless:/TCP', name: 'headless', portName: '', clusterIP: undefined })], {
      'ns1/svc1:p80/TCP': [ep('10.180.0.1', { ready: false, terminating: true }), ep('10.180.0.2', { ready: false, serving: false, terminating: true })],
      'ns1/headless:/TCP': [ep('10.180.0.9')],
    });
    assert.ok(r.activeNatChains.has(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.1:80')));
    assert.ok(!r.activeNatChains.has(endpointChain('ns1/svc1:p80', 'tcp', '10.180.0.2:80')));
    assert.ok(!r.natRules.some((l) => l.includes('headless')));
  });

  it('leaves unchanged services out of a partial sync but keeps their chains active', () => {
    const other = svc({ key: 'ns1/svc2:p80/TCP', name: 'svc2', clusterIP: '172.30.0.42' });
    const eps = { 'ns1/svc1:p80/TCP': [ep('10.180.0.1')], 'ns1/svc2:p80/TCP': [ep('10.180.0.2')] };
    const partial = rules([svc(), other], eps, { unchanged: new Set(['ns1/svc1:p80/TCP']) });
    assert.ok(!partial.natChains.includes(`:${SVC} - [0:0]`));
    assert.ok(!partial.natRules.some((l) => l.startsWith(`-A ${SVC}`)));
    assert.ok(partial.natRules.some((l) => l.startsWith('-A KUBE-SERVICES') && l.includes('172.30.0.41')), 'KUBE-SERVICES is always whole');
    assert.ok(partial.activeNatChains.has(SVC) && partial.activeNatChains.has(SEP1));
    assert.ok(partial.natChains.includes(`:${serviceChains('ns1/svc2:p80', 'tcp').cluster} - [0:0]`));
  });

  it('renders an iptables-restore input that deletes stale chains', () => {
    const text = renderRestore(rules([], {}), ['KUBE-SVC-OLD']);
    assert.match(text, /^\*filter\n/);
    assert.match(text, /\*nat\n(.*\n)*:KUBE-SVC-OLD - \[0:0\]\n(.*\n)*-X KUBE-SVC-OLD\nCOMMIT\n$/);
  });

  it('binds node ports to the given addresses only', () => {
    const r = rules([], {}, { nodePortAddresses: ['192.0.2.1'] });
    assert.ok(r.natRules.includes('-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.0.2.1 -j KUBE-NODEPORTS'));
  });
});
