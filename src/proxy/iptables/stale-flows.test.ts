import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServicePort } from '../service-port.js';
import { staleUdpFlows, type ProgrammedPort } from './stale-flows.js';

const dns = (o: Partial<ServicePort> = {}): ServicePort => ({ key: 'kube-system/kube-dns:dns/UDP', namespace: 'kube-system', name: 'kube-dns', portName: 'dns', protocol: 'UDP', clusterIP: '10.96.0.10', port: 53, externalIPs: [], externalLocal: false, internalLocal: false, ...o });
const state = (sp: ServicePort, ips: string[]): Map<string, ProgrammedPort> => new Map([[sp.key, { service: sp, endpointIPs: new Set(ips) }]]);

describe('staleUdpFlows', () => {
  it('clears flows to a removed endpoint, through the cluster IP and the node port', () => {
    const sp = dns({ nodePort: 30053 });
    assert.deepEqual(staleUdpFlows(state(sp, ['10.42.0.5', '10.42.0.6']), state(sp, ['10.42.0.6'])), [
      { origDst: '10.96.0.10', dstNat: '10.42.0.5' },
      { dport: 30053, dstNat: '10.42.0.5' },
    ]);
  });

  it('clears un-NATed flows when a service gets its first endpoint', () => {
    assert.deepEqual(staleUdpFlows(state(dns(), []), state(dns(), ['10.42.0.5'])), [{ origDst: '10.96.0.10' }]);
  });

  it('clears flows of a deleted service, and never touches TCP', () => {
    assert.deepEqual(staleUdpFlows(state(dns(), ['10.42.0.5']), new Map()), [{ origDst: '10.96.0.10', dstNat: '10.42.0.5' }]);
    const tcp = dns({ key: 'x/tcp:/TCP', protocol: 'TCP' });
    assert.deepEqual(staleUdpFlows(state(tcp, ['10.42.0.5']), state(tcp, [])), []);
  });
});
