import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ENDPOINT_SLICES, SERVICES } from '../api/resource-refs.js';
import { waitFor } from '../client/testing/wait-for.js';
import { createLogger } from '../machinery/logger.js';
import { startTestApiServer, type TestApiServer } from '../testing/test-api-server.js';
import { DnsIndex } from './dns-index.js';
import { KubeDnsService } from './kube-dns-service.js';
import { RecordsSync } from './records-sync.js';
import { resolveQuery, type Resolution } from './resolve-query.js';

const logger = createLogger('dns', {}, () => {});

describe('the DNS records follow the API server; the kube-dns Service is published', () => {
  let api: TestApiServer;
  const stop = new AbortController();
  const index = new DnsIndex();
  let sync: RecordsSync;
  let running: Promise<void>;

  before(async () => {
    api = await startTestApiServer();
    sync = new RecordsSync({ client: api.client, index, logger });
    running = sync.run(stop.signal);
  });

  after(async () => {
    stop.abort();
    await running;
    await api.stop();
  });

  const answer = (name: string): Resolution => resolveQuery(index, { name, type: 'A', class: 'IN' }, { zone: 'cluster.local', ttl: 5, serial: sync.serial() }) as Resolution;
  const ips = (name: string) => answer(name).answers.map((a) => ('data' in a ? a.data : ''));

  test('kube-dns gets the tenth address and this server\'s endpoint, and resolves', async () => {
    const publisher = new KubeDnsService({ client: api.client, logger, clusterIP: '10.96.0.10', endpoint: { ip: '192.0.2.53', dnsPort: 5353 }, sliceName: 'kube-dns-test' });
    await publisher.ensure();
    await publisher.ensure(); // idempotent
    const svc = await api.client.resource<Service>(SERVICES).namespace('kube-system').get('kube-dns');
    assert.equal(svc.spec?.clusterIP, '10.96.0.10');
    assert.deepEqual(svc.spec?.ports?.map((p) => `${p.name}/${p.port}/${p.protocol}`), ['dns/53/UDP', 'dns-tcp/53/TCP', 'metrics/9153/TCP']);
    const slice = await api.client.resource<EndpointSlice>(ENDPOINT_SLICES).namespace('kube-system').get('kube-dns-test');
    assert.deepEqual(slice.endpoints?.map((e) => e.addresses), [['192.0.2.53']]);
    assert.deepEqual(slice.ports?.map((p) => p.port), [5353, 5353]);
    await waitFor(() => ips('kube-dns.kube-system.svc.cluster.local')[0] === '10.96.0.10', 'kube-dns resolving', 10_000);
    sync.ready();
  });

  test('a headless Service resolves to its ready endpoints as they change, and not after it is deleted', async () => {
    await api.client.resource<Service>(SERVICES).namespace('default').create({ metadata: { name: 'web' }, spec: { clusterIP: 'None', ports: [{ name: 'http', port: 80 }] } });
    const slices = api.client.resource<EndpointSlice>(ENDPOINT_SLICES).namespace('default');
    const created = await slices.create({
      metadata: { name: 'web-x', labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.0.5'], hostname: 'web-0', conditions: { ready: true } }, { addresses: ['10.244.0.6'], hostname: 'web-1', conditions: { ready: false } }],
    });
    await waitFor(() => ips('web.default.svc.cluster.local').join() === '10.244.0.5', 'web resolving to its ready pod', 10_000);
    assert.deepEqual(ips('web-0.web.default.svc.cluster.local'), ['10.244.0.5']);
    await slices.update({ ...created, endpoints: created.endpoints!.map((e) => ({ ...e, conditions: { ready: true } })) });
    await waitFor(() => ips('web.default.svc.cluster.local').join() === '10.244.0.5,10.244.0.6', 'both pods ready', 10_000);
    await api.client.resource(SERVICES).namespace('default').delete('web');
    await waitFor(() => answer('web.default.svc.cluster.local').rcode === 'NXDOMAIN', 'web gone', 10_000);
  });
});
