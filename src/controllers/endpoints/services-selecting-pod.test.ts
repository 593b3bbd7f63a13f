import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { Lister } from '../../client/cache/lister.js';
import { servicesToUpdateOnPodChange } from './services-selecting-pod.js';

function services(...list: [string, Record<string, string>][]): Lister<Service> {
  const indexer = new MapIndexer<Service>();
  for (const [name, selector] of list) indexer.add({ metadata: { name, namespace: 'ns' }, spec: { selector } });
  return new Lister(indexer);
}

function pod(rv: string, o: { labels?: Record<string, string>; ip?: string; ready?: boolean; node?: string; deleting?: boolean; phase?: string } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', resourceVersion: rv, labels: o.labels ?? { app: 'web' }, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: { containers: [], nodeName: o.node },
    status: { phase: o.phase ?? 'Pending', podIP: o.ip, podIPs: o.ip ? [{ ip: o.ip }] : undefined, conditions: o.ready === undefined ? undefined : [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] },
  };
}

describe('servicesToUpdateOnPodChange', () => {
  const keys = servicesToUpdateOnPodChange(services(['web', { app: 'web' }], ['db', { app: 'db' }]));

  it('ignores a resync and changes no endpoint shows', () => {
    assert.deepEqual(keys(pod('1'), pod('1', { ip: '10.0.0.1' })), []);
    assert.deepEqual(keys(pod('1'), pod('2', { node: 'n1' })), []);
    assert.deepEqual(keys(pod('2', { ip: '10.0.0.1', ready: true }), pod('3', { ip: '10.0.0.1', ready: true, phase: 'Running' })), []);
  });

  it('looks at the selecting services when the endpoint changes', () => {
    assert.deepEqual(keys(pod('1', { node: 'n1' }), pod('2', { node: 'n1', ip: '10.0.0.1' })), ['ns/web']);
    assert.deepEqual(keys(pod('2', { ip: '10.0.0.1', ready: false }), pod('3', { ip: '10.0.0.1', ready: true })), ['ns/web']);
    assert.deepEqual(keys(pod('3', { ip: '10.0.0.1', ready: true }), pod('4', { ip: '10.0.0.1', ready: true, deleting: true })), ['ns/web']);
    assert.deepEqual(keys(pod('3', { ip: '10.0.0.1', ready: true }), pod('4', { ip: '10.0.0.1', ready: true, phase: 'Succeeded' })), ['ns/web']);
  });

  it('looks at services that start or stop selecting a relabelled pod', () => {
    assert.deepEqual(keys(pod('1', { ip: '10.0.0.1' }), pod('2', { ip: '10.0.0.1', labels: { app: 'db' } })), ['ns/web', 'ns/db']);
    assert.deepEqual(keys(pod('1', { ip: '10.0.0.1' }), pod('2', { ip: '10.0.0.1', labels: { app: 'web', tier: 'x' } })), []);
    assert.deepEqual(keys(pod('1', { ip: '10.0.0.1' }), pod('2', { ip: '10.0.0.2', labels: { app: 'db' } })), ['ns/web', 'ns/db']);
  });
});
