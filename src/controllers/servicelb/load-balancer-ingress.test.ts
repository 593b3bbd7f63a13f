import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Service } from 'kubernetes-types/core/v1.js';
import { loadBalancerIngress, sameIngress, servedByServiceLB, SERVICELB_CLASS } from './load-balancer-ingress.js';

const node = (name: string, ip: string, ready: boolean, external?: string): Node => ({
  metadata: { name },
  status: { addresses: [{ type: 'Hostname', address: name }, { type: 'InternalIP', address: ip }, ...(external ? [{ type: 'ExternalIP', address: external }] : [])], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const svc = (type: string, loadBalancerClass?: string): Service => ({ metadata: { namespace: 'default', name: 's' }, spec: { type, ...(loadBalancerClass ? { loadBalancerClass } : {}) } });

test('ServiceLB serves LoadBalancer Services without a class or with its own, and leaves other classes alone', () => {
  assert.ok(servedByServiceLB(svc('LoadBalancer')));
  assert.ok(servedByServiceLB(svc('LoadBalancer', SERVICELB_CLASS)));
  assert.equal(servedByServiceLB(svc('LoadBalancer', 'metallb.io/metallb')), false);
  assert.equal(servedByServiceLB(svc('NodePort')), false);
});

test('the ingress is the Ready nodes\' InternalIPs, sorted, as VIPs; every node\'s while none is Ready', () => {
  assert.deepEqual(loadBalancerIngress([node('b', '10.0.0.2', true, '1.2.3.4'), node('a', '10.0.0.1', true), node('c', '10.0.0.3', false)]), [{ ip: '10.0.0.1', ipMode: 'VIP' }, { ip: '10.0.0.2', ipMode: 'VIP' }]);
  assert.deepEqual(loadBalancerIngress([node('c', '10.0.0.3', false)]), [{ ip: '10.0.0.3', ipMode: 'VIP' }]);
  assert.deepEqual(loadBalancerIngress([]), []);
  assert.ok(sameIngress([{ ip: '10.0.0.1' }], [{ ip: '10.0.0.1', ipMode: 'VIP' }]));
  assert.equal(sameIngress([{ ip: '10.0.0.1' }], [{ ip: '10.0.0.2' }]), false);
});
