import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { formatResolvConf, parseResolvConf } from '../../base/resolv-conf.js';
import { podDnsConfig, type KubeletDnsSettings } from './pod-dns.js';

const host = parseResolvConf('# host\nnameserver 192.0.2.53\nnameserver 192.0.2.54\nsearch corp.example\noptions edns0 timeout:2\n');
const settings: KubeletDnsSettings = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', host };
const pod = (spec: Partial<PodSpec>): Pod => ({ metadata: { name: 'p', namespace: 'shop' }, spec: { containers: [], ...spec } });

test('ClusterFirst: the cluster DNS, the namespace search path plus the node\'s, ndots:5', () => {
  const { config, warnings } = podDnsConfig(pod({}), settings);
  assert.deepEqual(config, { servers: ['10.96.0.10'], searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example'], options: ['ndots:5'] });
  assert.deepEqual(warnings, []);
  assert.equal(formatResolvConf({ nameservers: config.servers, searches: config.searches, options: config.options }), 'nameserver 10.96.0.10\nsearch shop.svc.cluster.local svc.cluster.local cluster.local corp.example\noptions ndots:5\n');
});

test('ClusterFirst on the host network falls back to the node\'s resolv.conf; ClusterFirstWithHostNet does not', () => {
  assert.deepEqual(podDnsConfig(pod({ dnsPolicy: 'ClusterFirst', hostNetwork: true }), settings).config, { servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example'], options: ['edns0', 'timeout:2'] });
  assert.deepEqual(podDnsConfig(pod({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }), settings).config.servers, ['10.96.0.10']);
});

test('Default uses the node\'s resolv.conf', () => {
  assert.deepEqual(podDnsConfig(pod({ dnsPolicy: 'Default' }), settings).config.servers, ['192.0.2.53', '192.0.2.54']);
});

test('ClusterFirst without --cluster-dns falls back to Default with a MissingClusterDNS warning', () => {
  const { config, warnings } = podDnsConfig(pod({}), { ...settings, clusterDNS: [] });
  assert.deepEqual(config.servers, ['192.0.2.53', '192.0.2.54']);
  assert.deepEqual(warnings.map((w) => w.reason), ['MissingClusterDNS']);
  assert.match(warnings[0].message, /Falling back to "Default" policy/);
});

test('None takes dnsConfig alone; dnsConfig merges into other policies, options overriding by name', () => {
  const dnsConfig = { nameservers: ['1.2.3.4'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
  assert.deepEqual(podDnsConfig(pod({ dnsPolicy: 'None', dnsConfig }), settings).config, { servers: ['1.2.3.4'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: ['ndots:2', 'edns0'] });
  const merged = podDnsConfig(pod({ dnsConfig: { nameservers: ['10.96.0.10', '1.2.3.4'], searches: ['cluster.local', 'x.example'], options: [{ name: 'ndots', value: '1' }] } }), settings).config;
  assert.deepEqual(merged, { servers: ['10.96.0.10', '1.2.3.4'], searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'x.example'], options: ['ndots:1'] });
});

test('more than 3 nameservers or 32 search domains are trimmed with a DNSConfigForming warning', () => {
  const { config, warnings } = podDnsConfig(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'], searches: Array.from({ length: 40 }, (_, i) => `d${i}.example`) } }), settings);
  assert.equal(config.servers.length, 3);
  assert.equal(config.searches.length, 32);
  assert.deepEqual(warnings.map((w) => w.reason), ['DNSConfigForming', 'DNSConfigForming']);
});
