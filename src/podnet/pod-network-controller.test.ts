import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Iptables, Jump } from '../base/iptables-runner.js';
import type { Client } from '../client/rest/client.js';
import { createLogger } from '../machinery/logger.js';
import { desiredRoutes, type PodRoute } from './host-routes.js';
import { masqueradeRestore } from './masquerade-rules.js';
import { PodNetworkController } from './pod-network-controller.js';
import { parseRoutes, type RouteTable } from './route-table.js';

const node = (name: string, ip?: string, podCIDR?: string): Node => ({
  metadata: { name },
  spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
  status: { addresses: [{ type: 'Hostname', address: name }, ...(ip ? [{ type: 'InternalIP', address: ip }] : [])] },
});

class FakeRoutes implements RouteTable {
  routes: PodRoute[] = [];
  calls: string[] = [];
  list = async () => [...this.routes];
  async replace(r: PodRoute) {
    this.calls.push(`replace ${r.dst} via ${r.via}`);
    this.routes = [...this.routes.filter((x) => x.dst !== r.dst), r];
  }
  async remove(r: PodRoute) {
    this.calls.push(`remove ${r.dst} via ${r.via}`);
    this.routes = this.routes.filter((x) => x.dst !== r.dst || x.via !== r.via);
  }
}

class FakeIptables implements Iptables {
  jumps: Jump[] = [];
  restored: string[] = [];
  ensureJump = async (j: Jump) => void this.jumps.push(j);
  deleteJump = async () => undefined;
  restore = async (t: string) => void this.restored.push(t);
  chains = async () => [];
  hasRandomFully = async () => true;
}

describe('desiredRoutes', () => {
  it('routes every other node\'s pod CIDR through its InternalIP, skipping this node and nodes without either', () => {
    const nodes = [node('n2', '192.168.0.12', '10.42.2.0/24'), node('n1', '192.168.0.11', '10.42.1.0/24'), node('n3', undefined, '10.42.3.0/24'), node('n4', '192.168.0.14')];
    assert.deepEqual(desiredRoutes(nodes, 'n1'), [{ dst: '10.42.2.0/24', via: '192.168.0.12' }]);
    assert.deepEqual(desiredRoutes(nodes, 'other'), [{ dst: '10.42.1.0/24', via: '192.168.0.11' }, { dst: '10.42.2.0/24', via: '192.168.0.12' }]);
  });
});

describe('parseRoutes', () => {
  it('reads ip route output', () => {
    assert.deepEqual(parseRoutes('10.42.2.0/24 via 192.168.0.12 dev eth0 proto 151 \n10.42.3.5 via 192.168.0.13 dev eth0 proto 151\n'), [
      { dst: '10.42.2.0/24', via: '192.168.0.12' }, { dst: '10.42.3.5/32', via: '192.168.0.13' },
    ]);
  });
});

describe('PodNetworkController.sync', () => {
  it('adds missing routes, moves changed ones and removes routes of nodes that left; masquerades as flannel once', async () => {
    const routes = new FakeRoutes();
    routes.routes = [{ dst: '10.42.9.0/24', via: '192.168.0.19' }, { dst: '10.42.3.0/24', via: '192.168.0.99' }];
    const iptables = new FakeIptables();
    const c = new PodNetworkController({ client: {} as Client, routes, iptables, clusterCIDR: '10.42.0.0/16', nodeName: 'n1', logger: createLogger('podnet-test', {}, () => undefined) });
    await c.sync(desiredRoutes([node('n2', '192.168.0.12', '10.42.2.0/24'), node('n3', '192.168.0.13', '10.42.3.0/24')], 'n1'));
    assert.deepEqual(routes.calls, ['remove 10.42.9.0/24 via 192.168.0.19', 'remove 10.42.3.0/24 via 192.168.0.99', 'replace 10.42.2.0/24 via 192.168.0.12', 'replace 10.42.3.0/24 via 192.168.0.13']);
    routes.calls = [];
    await c.sync(desiredRoutes([node('n2', '192.168.0.12', '10.42.2.0/24'), node('n3', '192.168.0.13', '10.42.3.0/24')], 'n1'));
    assert.deepEqual(routes.calls, [], 'nothing to do when the routes match');
    assert.equal(iptables.restored.length, 1);
    assert.equal(iptables.restored[0], masqueradeRestore('10.42.0.0/16', true));
    assert.match(iptables.restored[0]!, /-A SKIFF-POSTRTG -s 10\.42\.0\.0\/16 -d 10\.42\.0\.0\/16 .*-j ACCEPT/);
    assert.match(iptables.restored[0]!, /-A SKIFF-POSTRTG -s 10\.42\.0\.0\/16 ! -d 224\.0\.0\.0\/4 .*-j MASQUERADE --random-fully/);
    assert.ok(iptables.jumps.every((j) => j.table === 'nat' && j.from === 'POSTROUTING' && j.to === 'SKIFF-POSTRTG'));
  });
});
