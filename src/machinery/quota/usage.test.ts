import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { fromUsage, prettyPrint, toUsage } from './resource-list.js';
import { matchingResources, podConstraints, quotaMatches, usageOf } from './usage.js';

const now = new Date('2026-01-01T00:00:00Z');
const pod = (spec: Partial<Pod['spec']> = {}, status?: Pod['status']): Pod => ({ metadata: { name: 'p' }, spec: { containers: [], ...spec }, status });

describe('quota usage', () => {
  it('a pod is charged its count and compute requests/limits; terminal pods nothing', () => {
    const p = pod({ containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } } }, { name: 'b', resources: { requests: { cpu: '1' } } }] });
    assert.deepEqual(fromUsage(usageOf('', 'pods', p, now)), {
      'count/pods': '1', pods: '1', cpu: '1100m', 'requests.cpu': '1100m', memory: '64Mi', 'requests.memory': '64Mi', 'limits.cpu': '200m',
    });
    assert.equal(usageOf('', 'pods', pod({}, { phase: 'Succeeded' }), now).size, 0);
  });

  it('services count node ports and load balancers; claims their storage (also per class); others their count', () => {
    assert.deepEqual(fromUsage(usageOf('', 'services', { spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } }, now)), {
      'count/services': '1', services: '1', 'services.nodeports': '2', 'services.loadbalancers': '1',
    });
    assert.deepEqual(fromUsage(usageOf('', 'persistentvolumeclaims', { spec: { storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } } }, now)), {
      'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1', 'requests.storage': '5Gi', 'fast.storageclass.storage.k8s.io/requests.storage': '5Gi',
    });
    assert.deepEqual(fromUsage(usageOf('apps', 'deployments', {}, now)), { 'count/deployments.apps': '1' });
    assert.deepEqual(fromUsage(usageOf('', 'configmaps', {}, now)), { 'count/configmaps': '1', configmaps: '1' });
  });

  it('matchingResources picks the hard names an object kind can use', () => {
    const hard = ['pods', 'requests.cpu', 'limits.memory', 'services', 'count/deployments.apps', 'configmaps'];
    assert.deepEqual(matchingResources('', 'pods', hard), ['pods', 'requests.cpu', 'limits.memory']);
    assert.deepEqual(matchingResources('apps', 'deployments', hard), ['count/deployments.apps']);
    assert.deepEqual(matchingResources('', 'secrets', hard), []);
  });

  it('scopes: BestEffort, Terminating, PriorityClass selectors; scoped quotas cover only pods', () => {
    const q = (spec: ResourceQuota['spec']): ResourceQuota => ({ spec });
    const be = pod({ containers: [{ name: 'a' }] });
    const burst = pod({ containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }], activeDeadlineSeconds: 30, priorityClassName: 'high' });
    assert.equal(quotaMatches(q({ scopes: ['BestEffort'] }), '', 'pods', be), true);
    assert.equal(quotaMatches(q({ scopes: ['BestEffort'] }), '', 'pods', burst), false);
    assert.equal(quotaMatches(q({ scopes: ['NotBestEffort', 'Terminating'] }), '', 'pods', burst), true);
    assert.equal(quotaMatches(q({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }), '', 'pods', burst), true);
    assert.equal(quotaMatches(q({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }), '', 'pods', be), false);
    assert.equal(quotaMatches(q({ scopes: ['NotTerminating'] }), '', 'services', {}), false);
    assert.equal(quotaMatches(q({ hard: { pods: '1' } }), '', 'services', {}), true);
  });

  it('podConstraints names the containers that do not state a quota-ed compute resource', () => {
    const p = pod({ containers: [{ name: 'b', resources: { limits: { cpu: '1' } } }, { name: 'a' }], initContainers: [{ name: 'i', resources: { limits: { cpu: '1', memory: '1Gi' } } }] });
    assert.equal(podConstraints(p, ['limits.cpu', 'limits.memory', 'pods']), 'must specify limits.cpu for: a; limits.memory for: a,b');
    assert.equal(podConstraints(p, ['pods']), undefined);
  });

  it('prettyPrint sorts names', () => {
    assert.equal(prettyPrint(toUsage({ pods: '2', 'limits.cpu': '1500m' })), 'limits.cpu=1500m,pods=2');
  });
});
