import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { endpointSliceTable, endpointsTable, serviceTable } from './services.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const meta = { name: 'svc', creationTimestamp: '2024-05-01T11:59:30Z' };
const svc = (spec: object, status: object = {}) => ({ metadata: meta, spec, status }) as KubeObject;

void test('ClusterIP service', () => {
  const s = svc({ type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }], selector: { k8s: 'dns' } });
  assert.deepEqual(serviceTable.cells(s, NOW), ['svc', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP', '30s', 'k8s=dns']);
  const headless = svc({ type: 'ClusterIP', clusterIP: 'None', ports: [] });
  assert.deepEqual(serviceTable.cells(headless, NOW), ['svc', 'ClusterIP', 'None', '<none>', '<none>', '30s', '<none>']);
  const external = svc({ clusterIPs: ['10.0.0.1'], externalIPs: ['1.2.3.4', '5.6.7.8'], ports: [{ port: 80 }] });
  assert.deepEqual(serviceTable.cells(external, NOW).slice(1, 5), ['ClusterIP', '10.0.0.1', '1.2.3.4,5.6.7.8', '80/TCP']);
});

void test('NodePort service shows port:nodePort', () => {
  const s = svc({ type: 'NodePort', clusterIPs: ['10.0.0.2'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 443, nodePort: 30443, protocol: 'TCP' }] });
  assert.deepEqual(serviceTable.cells(s, NOW).slice(1, 5), ['NodePort', '10.0.0.2', '<none>', '80:30080/TCP,443:30443/TCP']);
});

void test('LoadBalancer service: pending, then its ingress points plus external IPs', () => {
  const spec = { type: 'LoadBalancer', clusterIPs: ['10.0.0.3'], ports: [{ port: 80, nodePort: 31000, protocol: 'TCP' }] };
  assert.equal(serviceTable.cells(svc(spec), NOW)[3], '<pending>');
  const ingress = { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'a-very-long-load-balancer-name.example.com' }, { ip: '203.0.113.9' }] } };
  // Server-side tables are wide, so long addresses are never clipped.
  assert.equal(serviceTable.cells(svc(spec, ingress), NOW)[3], '203.0.113.9,a-very-long-load-balancer-name.example.com');
  assert.equal(serviceTable.cells(svc({ ...spec, externalIPs: ['1.1.1.1'] }, ingress), NOW)[3], '203.0.113.9,a-very-long-load-balancer-name.example.com,1.1.1.1');
});

void test('ExternalName service', () => {
  const s = svc({ type: 'ExternalName', externalName: 'db.example.com' });
  assert.deepEqual(serviceTable.cells(s, NOW), ['svc', 'ExternalName', '<none>', 'db.example.com', '<none>', '30s', '<none>']);
});

void test('endpoints: up to three addresses, then + N more...', () => {
  const addrs = (n: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.0.0.${i + 1}` }));
  const ep = (subsets: object[]) => ({ metadata: meta, subsets }) as KubeObject;
  assert.deepEqual(endpointsTable.cells(ep([]), NOW), ['svc', '<none>', '30s']);
  assert.equal(endpointsTable.cells(ep([{ addresses: addrs(2), ports: [{ port: 80 }] }]), NOW)[1], '10.0.0.1:80,10.0.0.2:80');
  assert.equal(endpointsTable.cells(ep([{ addresses: addrs(5), ports: [{ port: 80 }] }]), NOW)[1], '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...');
  assert.equal(endpointsTable.cells(ep([{ addresses: addrs(2), ports: [{ port: 80 }, { port: 443 }] }]), NOW)[1], '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...');
  assert.equal(endpointsTable.cells(ep([{ addresses: addrs(2) }]), NOW)[1], '10.0.0.1,10.0.0.2');
  assert.equal(endpointsTable.cells(ep([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }]), NOW)[1], '[fd00::1]:80');
});

void test('endpoint slices: ports and endpoints with <unset> when empty', () => {
  const es = {
    metadata: meta,
    addressType: 'IPv4',
    ports: [{ port: 80 }, { name: 'metrics' }, {}, { port: 9000 }],
    endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }],
  } as KubeObject;
  assert.deepEqual(endpointSliceTable.cells(es, NOW), ['svc', 'IPv4', '80,metrics,* + 1 more...', '10.0.0.1,10.0.0.2', '30s']);
  assert.deepEqual(endpointSliceTable.cells({ metadata: meta, addressType: 'IPv6' } as KubeObject, NOW), ['svc', 'IPv6', '<unset>', '<unset>', '30s']);
});
