import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identityHeaders } from './api-proxy.js';
import { resourcesFromDiscovery } from './remote-resources.js';

describe('remote discovery', () => {
  it("turns a backend's APIResourceList into resources, subresources folded in", () => {
    const doc = {
      kind: 'APIResourceList',
      groupVersion: 'metrics.k8s.io/v1beta1',
      resources: [
        { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
        { name: 'nodes', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'], shortNames: ['nm'] },
        { name: 'nodes/status', namespaced: false, kind: 'NodeMetrics', verbs: ['get'] },
      ],
    };
    const [pods, nodes] = resourcesFromDiscovery('metrics.k8s.io', 'v1beta1', doc)!;
    assert.deepEqual([pods.resource, pods.kind, pods.singular, pods.namespaced, pods.verbs], ['pods', 'PodMetrics', 'podmetrics', true, ['get', 'list']]);
    assert.deepEqual([nodes.resource, nodes.namespaced, nodes.shortNames, nodes.subresources], ['nodes', false, ['nm'], ['status']]);
  });

  it('refuses documents of another group/version or of another shape', () => {
    assert.equal(resourcesFromDiscovery('a.io', 'v1', { groupVersion: 'b.io/v1', resources: [] }), undefined);
    assert.equal(resourcesFromDiscovery('a.io', 'v1', 'garbage'), undefined);
    assert.equal(resourcesFromDiscovery('a.io', 'v1', null), undefined);
  });
});

describe('identity headers', () => {
  it('carry the user, every group and percent-encoded extra keys', () => {
    assert.deepEqual(identityHeaders({ name: 'jane', uid: 'u1', groups: ['devs', 'system:authenticated'], extra: { 'acme.com/team': ['blue', 'green'] } }), {
      'X-Remote-User': 'jane',
      'X-Remote-Group': ['devs', 'system:authenticated'],
      'X-Remote-Uid': 'u1',
      'X-Remote-Extra-acme.com%2Fteam': ['blue', 'green'],
    });
  });
});
