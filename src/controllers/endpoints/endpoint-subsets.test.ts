import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { computeEndpointSubsets, repackSubsets } from './endpoint-subsets.js';
import { findPort, PortNotFoundError } from './find-port.js';
import { TriggerTimeTracker } from './trigger-time-tracker.js';

function pod(name: string, ip: string | undefined, o: { ready?: boolean; port?: number; phase?: string; deleting?: boolean } = {}): Pod {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: { nodeName: 'n1', containers: [{ name: 'c', ports: o.port ? [{ name: 'http', containerPort: o.port }] : [] }] },
    status: { phase: o.phase ?? 'Running', podIP: ip, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

function service(spec: Service['spec'] = {}): Service {
  return { metadata: { name: 'svc', namespace: 'ns' }, spec: { selector: { app: 'x' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }], ...spec } };
}

describe('findPort', () => {
  it('uses numeric target ports as is, looks named ones up per pod and protocol', () => {
    assert.equal(findPort(pod('a', '10.0.0.1'), { port: 80, targetPort: 9000 }), 9000);
    assert.equal(findPort(pod('a', '10.0.0.1'), { port: 80 }), 80);
    assert.equal(findPort(pod('a', '10.0.0.1', { port: 7000 }), { port: 80, targetPort: 'http' }), 7000);
    assert.ok(findPort(pod('a', '10.0.0.1', { port: 7000 }), { port: 80, targetPort: 'http', protocol: 'UDP' }) instanceof PortNotFoundError);
    assert.ok(findPort(pod('a', '10.0.0.1'), { port: 80, targetPort: 'http' }) instanceof PortNotFoundError);
  });
});

describe('computeEndpointSubsets', () => {
  it('packs ready and not-ready pods offering the same ports into one subset', () => {
    const { subsets } = computeEndpointSubsets(service(), [pod('b', '10.0.0.2'), pod('a', '10.0.0.1'), pod('c', '10.0.0.3', { ready: false })]);
    assert.equal(subsets.length, 1);
    assert.deepEqual(subsets[0].addresses!.map((a) => a.ip), ['10.0.0.1', '10.0.0.2']);
    assert.deepEqual(subsets[0].notReadyAddresses!.map((a) => a.ip), ['10.0.0.3']);
    assert.deepEqual(subsets[0].ports, [{ name: 'web', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(subsets[0].addresses![0].targetRef, { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'uid-a' });
    assert.equal(subsets[0].addresses![0].nodeName, 'n1');
  });

  it('leaves out pods without IP, finished pods and terminating pods', () => {
    const { subsets } = computeEndpointSubsets(service(), [pod('a', undefined), pod('b', '10.0.0.2', { phase: 'Succeeded' }), pod('c', '10.0.0.3', { deleting: true })]);
    assert.deepEqual(subsets, []);
  });

  it('publishNotReadyAddresses publishes unready and terminating pods as ready', () => {
    const { subsets } = computeEndpointSubsets(service({ publishNotReadyAddresses: true }), [pod('a', '10.0.0.1', { ready: false }), pod('c', '10.0.0.3', { deleting: true })]);
    assert.deepEqual(subsets[0].addresses!.map((a) => a.ip), ['10.0.0.1', '10.0.0.3']);
    assert.equal(subsets[0].notReadyAddresses, undefined);
  });

  it('resolves named ports per pod: same IP, different ports are different subsets', () => {
    const svc = service({ ports: [{ name: 'web', port: 80, targetPort: 'http' }] });
    const { subsets, problems } = computeEndpointSubsets(svc, [pod('a', '10.0.0.1', { port: 7001 }), pod('b', '10.0.0.1', { port: 7002 }), pod('c', '10.0.0.9')]);
    assert.deepEqual(subsets.map((s) => [s.addresses![0].targetRef!.name, s.ports![0].port]), [['a', 7001], ['b', 7002]]);
    assert.equal(problems.length, 1);
    assert.equal(problems[0].pod, 'ns/c');
  });

  it('keeps port-less addresses of headless services only', () => {
    assert.equal(computeEndpointSubsets(service({ clusterIP: 'None', ports: [] }), [pod('a', '10.0.0.1')]).subsets[0].addresses!.length, 1);
    assert.deepEqual(computeEndpointSubsets(service({ ports: [] }), [pod('a', '10.0.0.1')]).subsets, []);
  });
});

describe('repackSubsets', () => {
  it('merges ports offered by the same addresses, and not-ready wins for a duplicated address', () => {
    const a = { ip: '10.0.0.1', targetRef: { uid: 'a' } };
    const out = repackSubsets([
      { addresses: [a], ports: [{ port: 80 }] },
      { addresses: [a], ports: [{ port: 81 }] },
      { addresses: [a], ports: [{ port: 82 }] },
      { notReadyAddresses: [a], ports: [{ port: 82 }] },
    ]);
    assert.deepEqual(out, [
      { addresses: [a], ports: [{ port: 80 }, { port: 81 }] },
      { notReadyAddresses: [a], ports: [{ port: 82 }] },
    ]);
  });
});

describe('TriggerTimeTracker', () => {
  it('reports the earliest change since the last sync, then nothing', () => {
    const t = new TriggerTimeTracker();
    const svc: Service = { metadata: { name: 's', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' } };
    const p = (name: string, at: string): Pod => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } });
    assert.equal(t.compute(svc, [p('a', '2024-01-01T00:00:05Z')]), Date.parse('2024-01-01T00:00:00Z'));
    assert.equal(t.compute(svc, [p('a', '2024-01-01T00:00:05Z')]), undefined);
    assert.equal(t.compute(svc, [p('a', '2024-01-01T00:00:09Z'), p('b', '2024-01-01T00:00:07Z')]), Date.parse('2024-01-01T00:00:07Z'));
  });
});
