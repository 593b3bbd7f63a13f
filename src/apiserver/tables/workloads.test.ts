import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import { controllerRevisionTable, daemonSetTable, deploymentTable, replicaSetTable, replicationControllerTable, statefulSetTable } from './workloads.js';
import { formatLabels } from './format.js';
import { formatLabelSelector, labelSelectorAsString } from '../../machinery/labels/index.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const meta = { name: 'web', creationTimestamp: '2024-05-01T11:00:00Z' };
const template = { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }, { name: 'log', image: 'busybox' }] } };

void test('deployment cells: READY, UP-TO-DATE, AVAILABLE and the wide columns', () => {
  const d = {
    metadata: meta,
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  } as KubeObject;
  assert.deepEqual(deploymentTable.cells(d, NOW), ['web', '2/3', 3, 2, '60m', 'nginx,log', 'nginx:1.25,busybox', 'app=web']);
  assert.deepEqual(
    deploymentTable.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Ready:string:0', 'Up-to-date:string:0', 'Available:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
  );
});

void test('deployment defaults: unset replicas read as 1, empty selector prints empty, bad selector <invalid>', () => {
  const d = { metadata: meta, spec: { template: {} } } as KubeObject;
  assert.deepEqual(deploymentTable.cells(d, NOW), ['web', '0/1', 0, 0, '60m', '', '', '']);
  const bad = { metadata: meta, spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } } } as KubeObject;
  assert.equal(deploymentTable.cells(bad, NOW)[7], '<invalid>');
});

void test('replication controller: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR (a plain label map)', () => {
  const rc = { metadata: meta, spec: { replicas: 3, selector: { tier: 'fe', app: 'web' }, template }, status: { replicas: 2, readyReplicas: 1 } } as KubeObject;
  assert.deepEqual(replicationControllerTable.cells(rc, NOW), ['web', 3, 2, 1, '60m', 'nginx,log', 'nginx:1.25,busybox', 'app=web,tier=fe']);
  assert.deepEqual(
    replicationControllerTable.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
  );
  assert.deepEqual(replicationControllerTable.cells({ metadata: meta, spec: {} } as KubeObject, NOW).slice(1, 4), [1, 0, 0]);
});

void test('replica set, stateful set and daemon set cells', () => {
  const rs = { metadata: meta, spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } }, template }, status: { replicas: 3, readyReplicas: 1 } } as KubeObject;
  assert.deepEqual(replicaSetTable.cells(rs, NOW), ['web', 3, 3, 1, '60m', 'nginx,log', 'nginx:1.25,busybox', 'app=web,pod-template-hash=abc']);

  const sts = { metadata: meta, spec: { replicas: 2, template }, status: { readyReplicas: 1 } } as KubeObject;
  assert.deepEqual(statefulSetTable.cells(sts, NOW), ['web', '1/2', '60m', 'nginx,log', 'nginx:1.25,busybox']);

  const ds = {
    metadata: meta,
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'a', image: 'agent' }] } } },
    status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 },
  } as KubeObject;
  assert.deepEqual(daemonSetTable.cells(ds, NOW), ['web', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '60m', 'a', 'agent', 'app=agent']);
  const bare = { metadata: meta, spec: { template: { spec: { containers: [] } } } } as KubeObject;
  assert.deepEqual(daemonSetTable.cells(bare, NOW).slice(6, 7), ['<none>']);
});

void test('controller revisions name their controller as kind.group/name', () => {
  const rev = (ownerReferences: object[]) => ({ metadata: { ...meta, ownerReferences }, revision: 4 }) as KubeObject;
  const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u', controller: true };
  assert.deepEqual(controllerRevisionTable.cells(rev([owner]), NOW), ['web', 'statefulset.apps/db', 4, '60m']);
  assert.equal(controllerRevisionTable.cells(rev([{ ...owner, controller: false }]), NOW)[1], '<none>');
  assert.equal(controllerRevisionTable.cells(rev([{ ...owner, apiVersion: 'v1', kind: 'Pod' }]), NOW)[1], 'pod/db');
});

void test('label selectors print like upstream: sorted keys, sorted set values', () => {
  assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
  assert.equal(formatLabels(undefined), '<none>');
  const sel = {
    matchLabels: { tier: 'web' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'zone', operator: 'NotIn', values: ['b'] },
      { key: 'gpu', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  };
  assert.equal(labelSelectorAsString(sel), 'env in (dev,prod),gpu,!legacy,tier=web,zone notin (b)');
  assert.equal(formatLabelSelector(undefined), '<none>');
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), '<error>');
});
