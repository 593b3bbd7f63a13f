import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Question } from 'dns-packet';
import { DnsIndex } from './dns-index.js';
import { resolveQuery, type Resolution } from './resolve-query.js';

const OPTS = { zone: 'cluster.local', ttl: 5, serial: 42, nameserverIPs: ['10.96.0.10'] };

function svc(name: string, spec: Service['spec'], namespace = 'default'): Service {
  return { metadata: { name, namespace }, spec };
}

function slice(service: string, endpoints: { ip: string; hostname?: string; ready?: boolean }[], ports = [{ name: 'http', port: 8080, protocol: 'TCP' }], namespace = 'default'): EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: `${service}-abc`, namespace, labels: { 'kubernetes.io/service-name': service } },
    endpoints: endpoints.map((e) => ({ addresses: [e.ip], hostname: e.hostname, conditions: { ready: e.ready ?? true } })),
    ports,
  };
}

function index(): DnsIndex {
  const i = new DnsIndex();
  i.setService(svc('web', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] }));
  i.setService(svc('db', { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] }));
  i.setSlice(slice('db', [{ ip: '10.244.0.6', hostname: 'db-1' }, { ip: '10.244.0.5', hostname: 'db-0' }, { ip: '10.244.0.7', hostname: 'db-2', ready: false }], [{ name: 'pg', port: 5432, protocol: 'TCP' }]));
  i.setService(svc('anon', { clusterIP: 'None' }));
  i.setSlice(slice('anon', [{ ip: '10.244.1.9' }]));
  i.setService(svc('empty', { clusterIP: 'None' }));
  i.setService(svc('ext', { type: 'ExternalName', externalName: 'example.com.' }));
  i.setService(svc('v6', { clusterIP: 'fd00::14', clusterIPs: ['fd00::14'] }, 'other'));
  return i;
}

function ask(i: DnsIndex, name: string, type = 'A'): Resolution {
  const r = resolveQuery(i, { name, type, class: 'IN' } as Question, OPTS);
  assert.ok(!('forward' in r), `${name} is the cluster's to answer`);
  return r;
}

const data = (r: Resolution) => r.answers.map((a) => ('data' in a ? a.data : undefined));

describe('resolveQuery', () => {
  test('a ClusterIP Service resolves to its cluster IP, in any case, with the TTL', () => {
    const r = ask(index(), 'Web.Default.svc.cluster.local');
    assert.equal(r.rcode, 'NOERROR');
    assert.deepEqual(r.answers, [{ name: 'Web.Default.svc.cluster.local', type: 'A', ttl: 5, data: '10.96.0.20' }]);
    assert.equal(r.serviceKey, 'default/web');
  });

  test('a name that exists without records of the type is NODATA with the SOA; a missing one NXDOMAIN', () => {
    const i = index();
    const aaaa = ask(i, 'web.default.svc.cluster.local', 'AAAA');
    assert.equal(aaaa.rcode, 'NOERROR');
    assert.deepEqual(aaaa.answers, []);
    assert.equal(aaaa.authorities[0].type, 'SOA');
    for (const name of ['nope.default.svc.cluster.local', 'web.nons.svc.cluster.local', 'web.default.svc.cluster.local.default.svc.cluster.local', 'x.cluster.local']) {
      const r = ask(i, name);
      assert.equal(r.rcode, 'NXDOMAIN', name);
      assert.deepEqual((r.authorities[0] as { data: { minimum: number; mname: string } }).data.mname, 'ns.dns.cluster.local');
    }
    assert.equal(ask(i, 'default.svc.cluster.local').rcode, 'NOERROR');
    assert.equal(ask(i, 'nons.svc.cluster.local').rcode, 'NXDOMAIN');
    assert.equal(ask(i, 'svc.cluster.local').rcode, 'NOERROR');
  });

  test('an IPv6 cluster IP answers AAAA', () => {
    assert.deepEqual(data(ask(index(), 'v6.other.svc.cluster.local', 'AAAA')), ['fd00::14']);
    assert.deepEqual(ask(index(), 'v6.other.svc.cluster.local', 'A').answers, []);
  });

  test('a headless Service resolves to each ready endpoint; its named endpoints resolve by hostname', () => {
    const i = index();
    assert.deepEqual(data(ask(i, 'db.default.svc.cluster.local')), ['10.244.0.5', '10.244.0.6']);
    assert.deepEqual(data(ask(i, 'db-0.db.default.svc.cluster.local')), ['10.244.0.5']);
    assert.equal(ask(i, 'db-2.db.default.svc.cluster.local').rcode, 'NXDOMAIN', 'not ready');
    // without a hostname, the endpoint's dashed IP names it
    assert.deepEqual(data(ask(i, '10-244-1-9.anon.default.svc.cluster.local')), ['10.244.1.9']);
    // no ready endpoints: the name does not exist, as CoreDNS answers
    assert.equal(ask(i, 'empty.default.svc.cluster.local').rcode, 'NXDOMAIN');
    // a ClusterIP Service has no endpoint names
    assert.equal(ask(i, 'x.web.default.svc.cluster.local').rcode, 'NXDOMAIN');
  });

  test('publishNotReadyAddresses publishes not-ready endpoints', () => {
    const i = index();
    i.setService(svc('db', { clusterIP: 'None', publishNotReadyAddresses: true }));
    assert.deepEqual(data(ask(i, 'db.default.svc.cluster.local')), ['10.244.0.5', '10.244.0.6', '10.244.0.7']);
  });

  test('SRV for a named port: the Service name for ClusterIP, each endpoint for headless, with addresses in additionals', () => {
    const i = index();
    const web = ask(i, '_http._tcp.web.default.svc.cluster.local', 'SRV');
    assert.deepEqual(data(web), [{ priority: 0, weight: 100, port: 80, target: 'web.default.svc.cluster.local' }]);
    assert.deepEqual(web.additionals, [{ name: 'web.default.svc.cluster.local', type: 'A', ttl: 5, data: '10.96.0.20' }]);
    assert.equal(ask(i, '_dns._udp.web.default.svc.cluster.local', 'SRV').answers.length, 1);
    assert.equal(ask(i, '_dns._tcp.web.default.svc.cluster.local', 'SRV').rcode, 'NXDOMAIN', 'protocol must match');
    assert.equal(ask(i, '_http._tcp.web.default.svc.cluster.local', 'A').rcode, 'NOERROR', 'the name exists: NODATA');
    const db = ask(i, '_pg._tcp.db.default.svc.cluster.local', 'SRV');
    assert.deepEqual(data(db), [
      { priority: 0, weight: 50, port: 5432, target: 'db-0.db.default.svc.cluster.local' },
      { priority: 0, weight: 50, port: 5432, target: 'db-1.db.default.svc.cluster.local' },
    ]);
    assert.deepEqual(db.additionals.map((a) => a.name), ['db-0.db.default.svc.cluster.local', 'db-1.db.default.svc.cluster.local']);
  });

  test('ExternalName answers a CNAME', () => {
    assert.deepEqual(ask(index(), 'ext.default.svc.cluster.local').answers, [{ name: 'ext.default.svc.cluster.local', type: 'CNAME', ttl: 5, data: 'example.com' }]);
  });

  test('PTR for cluster IPs and named endpoints; unknown reverse names and other zones are forwarded', () => {
    const i = index();
    assert.deepEqual(data(ask(i, '20.0.96.10.in-addr.arpa', 'PTR')), ['web.default.svc.cluster.local']);
    assert.deepEqual(data(ask(i, '5.0.244.10.in-addr.arpa', 'PTR')), ['db-0.db.default.svc.cluster.local']);
    const v6 = '4.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa';
    assert.deepEqual(data(ask(i, v6, 'PTR')), ['v6.other.svc.cluster.local']);
    assert.ok('forward' in resolveQuery(i, { name: '1.1.168.192.in-addr.arpa', type: 'PTR', class: 'IN' }, OPTS));
    assert.ok('forward' in resolveQuery(i, { name: 'example.com', type: 'A', class: 'IN' }, OPTS));
    assert.ok('forward' in resolveQuery(i, { name: 'cluster.localx', type: 'A', class: 'IN' }, OPTS));
  });

  test('a deleted Service or endpoint leaves the records', () => {
    const i = index();
    const before = i.generation;
    i.deleteService('default', 'web');
    assert.ok(i.generation > before);
    assert.equal(ask(i, 'web.default.svc.cluster.local').rcode, 'NXDOMAIN');
    assert.ok('forward' in resolveQuery(i, { name: '20.0.96.10.in-addr.arpa', type: 'PTR', class: 'IN' }, OPTS));
    i.deleteSlice(slice('db', []));
    assert.equal(ask(i, 'db.default.svc.cluster.local').rcode, 'NXDOMAIN');
  });

  test('pod names, the zone apex, ns.dns and the schema version', () => {
    const i = index();
    assert.deepEqual(data(ask(i, '10-244-0-9.default.pod.cluster.local')), ['10.244.0.9']);
    assert.equal(ask(i, 'not-an-ip.default.pod.cluster.local').rcode, 'NXDOMAIN');
    assert.equal(ask(i, 'cluster.local', 'SOA').answers[0].type, 'SOA');
    const ns = ask(i, 'cluster.local', 'NS');
    assert.deepEqual(data(ns), ['ns.dns.cluster.local']);
    assert.deepEqual(ns.additionals.map((a) => ('data' in a ? a.data : '')), ['10.96.0.10']);
    assert.deepEqual(data(ask(i, 'ns.dns.cluster.local')), ['10.96.0.10']);
    assert.deepEqual(data(ask(i, 'dns-version.cluster.local', 'TXT')), ['1.1.0']);
  });
});
