import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../base/fake-clock.js';
import { createLogger } from '../../machinery/logger.js';
import type { ServiceEndpoint, ServicePort } from '../service-port.js';
import { serviceChains } from './chain-names.js';
import type { FlowFilter } from './stale-flows.js';
import { IptablesProxier, JUMPS } from './iptables-proxier.js';
import type { Iptables, Jump } from '../../base/iptables-runner.js';

/** Records what the proxier asks of iptables; `existing` plays iptables-save's chain list. */
class RecordingIptables implements Iptables {
  restores: string[] = [];
  jumps: Jump[] = [];
  existing: string[] = [];
  fail = false;
  ensureJump(j: Jump): Promise<void> {
    this.jumps.push(j);
    return Promise.resolve();
  }
  deleteJump(): Promise<void> {
    return Promise.resolve();
  }
  restore(input: string): Promise<void> {
    if (this.fail) return Promise.reject(new Error('iptables-restore: line 3 failed'));
    this.restores.push(input);
    return Promise.resolve();
  }
  chains(): Promise<string[]> {
    return Promise.resolve(this.existing);
  }
  hasRandomFully(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

const sp = (name: string, protocol: 'TCP' | 'UDP' = 'TCP'): ServicePort => ({ key: `ns/${name}:/${protocol}`, namespace: 'ns', name, portName: '', protocol, clusterIP: `10.96.0.${name.length}`, port: 80, externalIPs: [], externalLocal: false, internalLocal: false });
const ep = (ip: string): ServiceEndpoint => ({ ip, port: 8080, ready: true, serving: true, terminating: false, nodeName: 'n1' });

describe('IptablesProxier syncs', () => {
  const setup = () => {
    const iptables = new RecordingIptables();
    const flows: FlowFilter[] = [];
    const clock = new FakeClock();
    const proxier = new IptablesProxier({ iptables, nodeName: 'n1', clock, fullSyncPeriodMs: 60_000, conntrack: { deleteUdp: (f) => Promise.resolve(void flows.push(f)) }, logger: createLogger('t', {}, () => undefined) });
    return { iptables, flows, clock, proxier };
  };

  it('syncs fully first (jumps included), then rewrites only the services that changed, then fully again after the period', async () => {
    const { iptables, clock, proxier } = setup();
    const a = sp('a');
    const bb = sp('bb');
    const chainA = serviceChains('ns/a', 'tcp').cluster;
    const chainB = serviceChains('ns/bb', 'tcp').cluster;
    await proxier.sync([a, bb], new Map([[a.key, [ep('10.42.0.1')]], [bb.key, [ep('10.42.0.2')]]]));
    assert.equal(iptables.jumps.length, JUMPS.length);
    assert.match(iptables.restores[0], new RegExp(`:${chainA} `));
    assert.match(iptables.restores[0], new RegExp(`:${chainB} `));

    await proxier.sync([a, bb], new Map([[a.key, [ep('10.42.0.1')]], [bb.key, [ep('10.42.0.3')]]]));
    assert.equal(iptables.jumps.length, JUMPS.length, 'no jumps re-checked in a partial sync');
    assert.doesNotMatch(iptables.restores[1], new RegExp(`:${chainA} `));
    assert.match(iptables.restores[1], new RegExp(`:${chainB} `));
    assert.match(iptables.restores[1], /-X KUBE-SEP-/, 'the old endpoint chain goes');

    await clock.advance(60_000);
    await proxier.sync([a, bb], new Map([[a.key, [ep('10.42.0.1')]], [bb.key, [ep('10.42.0.3')]]]));
    assert.equal(iptables.jumps.length, 2 * JUMPS.length);
    assert.match(iptables.restores[2], new RegExp(`:${chainA} `));
  });

  it('deletes leftover service chains found in iptables-save on a full sync, and retries fully after a failure', async () => {
    const { iptables, proxier } = setup();
    iptables.existing = ['KUBE-SERVICES', 'KUBE-SVC-LEFTOVER0000000', 'DOCKER'];
    const a = sp('a');
    await proxier.sync([a], new Map([[a.key, [ep('10.42.0.1')]]]));
    assert.match(iptables.restores[0], /-X KUBE-SVC-LEFTOVER0000000/);
    assert.doesNotMatch(iptables.restores[0], /-X (DOCKER|KUBE-SERVICES)/);
    iptables.fail = true;
    await assert.rejects(proxier.sync([a], new Map()));
    iptables.fail = false;
    await proxier.sync([a], new Map([[a.key, [ep('10.42.0.1')]]]));
    assert.equal(iptables.jumps.length, 2 * JUMPS.length, 'the sync after a failure is a full one');
  });

  it('clears conntrack entries of a UDP endpoint that went away', async () => {
    const { flows, proxier } = setup();
    const dns = sp('dns', 'UDP');
    await proxier.sync([dns], new Map([[dns.key, [ep('10.42.0.1'), ep('10.42.0.2')]]]));
    await proxier.sync([dns], new Map([[dns.key, [ep('10.42.0.2')]]]));
    assert.deepEqual(flows, [{ origDst: dns.clusterIP, dstNat: '10.42.0.1' }]);
  });
});
