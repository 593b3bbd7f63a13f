import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointChain, isServiceChain, serviceChains, servicePortName } from './chain-names.js';

describe('iptables chain names', () => {
  it('hash like upstream kube-proxy (values from its proxier tests)', () => {
    const name = servicePortName('ns1', 'svc1', 'p80');
    assert.equal(name, 'ns1/svc1:p80');
    assert.equal(serviceChains(name, 'TCP').cluster, 'KUBE-SVC-XPGD46QRK7WJZT7O');
    assert.equal(endpointChain(name, 'TCP', '10.180.0.1:80'), 'KUBE-SEP-SXIVWICOYRO3J4NJ');
  });

  it('shares one hash across the SVC, SVL and EXT chains of a port', () => {
    const c = serviceChains('ns/web', 'udp');
    assert.equal(c.cluster.slice(9), c.local.slice(9));
    assert.equal(c.external.slice(9), c.cluster.slice(9));
    assert.ok(c.cluster.length <= 28);
    assert.equal(servicePortName('ns', 'web', ''), 'ns/web');
  });

  it('tells per-service chains from the fixed ones', () => {
    assert.ok(isServiceChain('KUBE-SEP-AAAA'));
    assert.ok(!isServiceChain('KUBE-SERVICES'));
    assert.ok(!isServiceChain('KUBE-MARK-MASQ'));
  });
});
