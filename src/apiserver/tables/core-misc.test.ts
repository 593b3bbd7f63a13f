import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/object.js';
import {
  configMapTable,
  leaseTable,
  namespaceTable,
  podDisruptionBudgetTable,
  priorityClassTable,
  resourceQuotaTable,
  secretTable,
  serviceAccountTable,
} from './core-misc.js';
import { eventTable, eventsV1Table } from './events.js';
import { persistentVolumeClaimTable, persistentVolumeTable } from './volumes.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const metadata = { name: 'x', creationTimestamp: '2024-05-01T10:00:00Z' };
const obj = (o: object) => ({ metadata, ...o }) as KubeObject;

void test('namespaces, config maps, secrets and service accounts', () => {
  assert.deepEqual(namespaceTable.cells(obj({ status: { phase: 'Active' } }), NOW), ['x', 'Active', '120m']);
  assert.deepEqual(configMapTable.cells(obj({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), NOW), ['x', 3, '120m']);
  assert.deepEqual(secretTable.cells(obj({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }), NOW), ['x', 'kubernetes.io/tls', 2, '120m']);
  assert.deepEqual(serviceAccountTable.cells(obj({}), NOW), ['x', 0, '120m']);
});

void test('resource quotas split requests and limits', () => {
  const rq = obj({
    status: {
      hard: { pods: '10', 'requests.cpu': '2000m', 'limits.memory': '2Gi', 'limits.cpu': '4' },
      used: { pods: '3', 'requests.cpu': '500m', 'limits.cpu': '1' },
    },
  });
  assert.deepEqual(resourceQuotaTable.cells(rq, NOW), ['x', 'pods: 3/10, requests.cpu: 500m/2', 'limits.cpu: 1/4, limits.memory: 0/2Gi', '120m']);
});

void test('leases, disruption budgets and priority classes', () => {
  assert.deepEqual(leaseTable.cells(obj({ spec: { holderIdentity: 'node-1' } }), NOW), ['x', 'node-1', '120m']);
  assert.deepEqual(podDisruptionBudgetTable.cells(obj({ spec: { minAvailable: 2 }, status: { disruptionsAllowed: 1 } }), NOW), ['x', '2', 'N/A', 1, '120m']);
  assert.deepEqual(podDisruptionBudgetTable.cells(obj({ spec: { maxUnavailable: '50%' } }), NOW), ['x', 'N/A', '50%', 0, '120m']);
  assert.deepEqual(priorityClassTable.cells(obj({ value: 1000, globalDefault: true, preemptionPolicy: 'Never' }), NOW), ['x', 1000, true, '120m', 'Never']);
  assert.deepEqual(priorityClassTable.cells(obj({ value: -5 }), NOW), ['x', -5, false, '120m', '']);
});

void test('core events: last seen, object, source and count', () => {
  const ev = obj({
    involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{app}' },
    reason: 'Pulled',
    message: ' Container image pulled \n',
    type: 'Normal',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-05-01T11:00:00Z',
    lastTimestamp: '2024-05-01T11:59:00Z',
    count: 4,
  });
  assert.deepEqual(eventTable.cells(ev, NOW), ['60s', 'Normal', 'Pulled', 'pod/web-1', 'spec.containers{app}', 'kubelet, node-1', 'Container image pulled', '60m', 4, 'x']);
  const bare = obj({ involvedObject: { kind: 'Node' }, firstTimestamp: '0001-01-01T00:00:00Z', eventTime: '2024-05-01T11:59:50.000000Z', reportingComponent: 'skiff-scheduler' });
  assert.deepEqual(eventTable.cells(bare, NOW), ['10s', '', '', 'node', '', 'skiff-scheduler', '', '10s', 1, 'x']);
  assert.deepEqual(eventTable.columns.map((c) => c.priority), [0, 0, 0, 0, 1, 1, 0, 1, 1, 1]);
});

void test('events.k8s.io events print through the core fields', () => {
  const ev = obj({
    regarding: { kind: 'Deployment', name: 'web' },
    note: 'Scaled up',
    reason: 'ScalingReplicaSet',
    type: 'Normal',
    eventTime: '2024-05-01T11:00:00.000000Z',
    series: { count: 7, lastObservedTime: '2024-05-01T11:58:00.000000Z' },
    reportingController: 'deployment-controller',
    reportingInstance: 'cm-1',
  });
  assert.deepEqual(eventsV1Table.cells(ev, NOW), ['2m', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller, cm-1', 'Scaled up', '60m', 7, 'x']);
});

void test('persistent volumes and claims', () => {
  const pv = obj({
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'ns', name: 'data' }, storageClassName: 'local' },
    status: { phase: 'Bound' },
  });
  assert.deepEqual(persistentVolumeTable.cells(pv, NOW), ['x', '5Gi', 'RWO,RWX', 'Retain', 'Bound', 'ns/data', 'local', '<unset>', '', '120m', '<unset>']);
  const pending = obj({ spec: { resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' }, status: { phase: 'Pending' } });
  assert.deepEqual(persistentVolumeClaimTable.cells(pending, NOW), ['x', 'Pending', '', '', '', 'fast', '<unset>', '120m', '<unset>']);
  const bound = obj({
    metadata: { ...metadata, annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' }, deletionTimestamp: '2024-05-01T12:00:00Z' },
    spec: { volumeName: 'pv-1', volumeMode: 'Filesystem' },
    status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOncePod'] },
  });
  assert.deepEqual(persistentVolumeClaimTable.cells(bound, NOW), ['x', 'Terminating', 'pv-1', '1Gi', 'RWOP', 'old', '<unset>', '120m', 'Filesystem']);
});
