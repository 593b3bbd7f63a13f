import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { desiredEndpoints, type PortSet } from './desired-endpoints.js';
import { planSlices } from './slice-plan.js';
import { SliceExpectations } from './slice-expectations.js';
import { FakeClock } from '../../base/fake-clock.js';

const svc: Service = { metadata: { name: 'svc', namespace: 'ns' }, spec: { selector: { app: 'x' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] } };

function pod(name: string, o: { ready?: boolean; deleting?: boolean; port?: number } = {}): Pod {
  return {
    metadata: { name, namespace: 'ns', uid: name, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: o.port ?? 8080 }] }] },
    status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

const ep = (uid: string): Endpoint => ({ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', uid, name: uid } });
const set = (n: number, prefix = 'p'): PortSet => ({ ports: [{ name: 'web', port: 8080, protocol: 'TCP' }], endpoints: Array.from({ length: n }, (_, i) => ep(`${prefix}${String(i).padStart(4, '0')}`)) });
const slice = (name: string, endpoints: Endpoint[], ports = set(0).ports): EndpointSlice => ({ metadata: { name }, addressType: 'IPv4', endpoints, ports });

describe('desiredEndpoints', () => {
  it('sets ready/serving/terminating and groups endpoints by resolved ports', () => {
    const sets = desiredEndpoints(svc, [pod('a'), pod('b', { ready: false }), pod('c', { deleting: true }), pod('d', { port: 9090 })]);
    assert.equal(sets.size, 2);
    const main = [...sets.values()].find((s) => s.ports[0].port === 8080)!;
    const cond = Object.fromEntries(main.endpoints.map((e) => [e.targetRef!.name, e.conditions]));
    assert.deepEqual(cond.a, { ready: true, serving: true, terminating: false });
    assert.deepEqual(cond.b, { ready: false, serving: false, terminating: false });
    assert.deepEqual(cond.c, { ready: false, serving: true, terminating: true });
    assert.equal(main.endpoints[0].nodeName, 'n1');
  });
});

describe('planSlices', () => {
  it('creates slices of at most 100 endpoints', () => {
    const plan = planSlices([], new Map([['k', set(250)]]));
    assert.deepEqual(plan.create.map((s) => s.endpoints.length), [100, 100, 50]);
  });

  it('leaves endpoints where they are, drops gone ones and fills changed slices first', () => {
    const full = set(120);
    const existing = [slice('s1', full.endpoints.slice(0, 100)), slice('s2', full.endpoints.slice(100, 110))];
    // p0000 left; p0110..p0119 are new.
    const desired = { ...full, endpoints: full.endpoints.slice(1) };
    const plan = planSlices(existing, new Map([['web/8080/TCP/', desired]]));
    assert.deepEqual(plan.create, []);
    assert.deepEqual(plan.delete, []);
    const s1 = plan.update.find((s) => s.metadata?.name === 's1')!;
    assert.equal(s1.endpoints!.length, 100);
    assert.ok(!s1.endpoints!.some((e) => e.targetRef?.uid === 'p0000'));
    const total = [...plan.update, ...plan.unchanged].reduce((n, s) => n + s.endpoints!.length, 0);
    assert.equal(total, 119);
  });

  it('changes nothing when nothing changed, and deletes slices of ports no longer offered', () => {
    const s = set(3);
    const same = planSlices([slice('s1', s.endpoints)], new Map([['web/8080/TCP/', s]]));
    assert.deepEqual([same.create.length, same.update.length, same.unchanged.length, same.delete.length], [0, 0, 1, 0]);
    const moved = planSlices([slice('s1', s.endpoints, [{ name: 'web', port: 9999, protocol: 'TCP' }])], new Map([['web/8080/TCP/', s]]));
    assert.equal(moved.delete.length, 1);
    assert.equal(moved.create[0].endpoints.length, 3);
  });

  it('keeps one empty placeholder slice for a service without endpoints', () => {
    assert.deepEqual(planSlices([], new Map()).create, [{ ports: [], endpoints: [] }]);
    const plan = planSlices([slice('s1', set(2).endpoints), slice('s2', set(1).endpoints)], new Map());
    assert.equal(plan.update.length, 1);
    assert.deepEqual(plan.update[0].endpoints, []);
    assert.equal(plan.delete.length, 1);
  });
});

describe('SliceExpectations', () => {
  it('waits until the cache shows our writes, or the expectation lapses', () => {
    const clock = new FakeClock(0);
    const e = new SliceExpectations(1000, clock);
    e.expectWritten('ns/svc', { metadata: { name: 's1', resourceVersion: '10' } } as EndpointSlice);
    e.expectDeleted('ns/svc', 's2');
    const cache = new Map<string, EndpointSlice>([['s2', {} as EndpointSlice]]);
    assert.equal(e.satisfied('ns/svc', (n) => cache.get(n)), false);
    cache.set('s1', { metadata: { resourceVersion: '11' } } as EndpointSlice);
    cache.delete('s2');
    assert.equal(e.satisfied('ns/svc', (n) => cache.get(n)), true);
    e.expectDeleted('ns/svc', 's1');
    clock.set(2000);
    assert.equal(e.satisfied('ns/svc', (n) => cache.get(n)), true);
  });
});
