import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { planStatefulSet, type StatefulSetPlanInput } from './stateful-set-plan.js';
import { claimName, newPersistentVolumeClaims, newStatefulSetPod, podOrdinal } from './stateful-pod.js';

function pod(ord: number, opts: { ready?: boolean; revision?: string; phase?: string; deleting?: boolean } = {}): Pod {
  const ready = opts.ready ?? true;
  return {
    metadata: { name: `web-${ord}`, labels: { 'controller-revision-hash': opts.revision ?? 'web-old' }, deletionTimestamp: opts.deleting ? '2024-01-01T00:00:00Z' : undefined },
    status: { phase: opts.phase ?? (ready ? 'Running' : 'Pending'), conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function plan(pods: Pod[], o: Partial<StatefulSetPlanInput> = {}) {
  return planStatefulSet({
    replicas: 3,
    start: 0,
    ordered: true,
    updateStrategy: 'RollingUpdate',
    partition: 0,
    minReadySeconds: 0,
    now: 0,
    pods: new Map(pods.map((p) => [Number(p.metadata!.name!.split('-')[1]), p])),
    currentRevision: 'web-old',
    updateRevision: 'web-old',
    revisionOf: (p) => p.metadata?.labels?.['controller-revision-hash'],
    ...o,
  }).map((a) => (a.type === 'create' ? `create ${a.ordinal} ${a.revision}` : `delete ${a.ordinal} ${a.why}`));
}

test('OrderedReady creates one ordinal at a time, each after the previous is Running and Ready', () => {
  assert.deepEqual(plan([]), ['create 0 update']);
  assert.deepEqual(plan([pod(0, { ready: false })]), []);
  assert.deepEqual(plan([pod(0)]), ['create 1 update']);
  assert.deepEqual(plan([pod(0), pod(1)]), ['create 2 update']);
  assert.deepEqual(plan([pod(0), pod(1), pod(2)]), []);
});

test('Parallel creates every missing ordinal at once', () => {
  assert.deepEqual(plan([pod(1, { ready: false })], { ordered: false }), ['create 0 update', 'create 2 update']);
});

test('a failed pod is deleted to be recreated', () => {
  assert.deepEqual(plan([pod(0), pod(1, { phase: 'Failed', ready: false }), pod(2)]), ['delete 1 failed']);
});

test('scale down removes the highest ordinal first, one at a time, only when healthy', () => {
  assert.deepEqual(plan([pod(0), pod(1), pod(2), pod(3), pod(4)]), ['delete 4 condemned']);
  assert.deepEqual(plan([pod(0), pod(1), pod(2), pod(3), pod(4, { deleting: true })]), []);
  assert.deepEqual(plan([pod(0), pod(1, { ready: false }), pod(2), pod(3)]), []);
  assert.deepEqual(plan([pod(0), pod(1), pod(2), pod(3), pod(4)], { ordered: false }), ['delete 4 condemned', 'delete 3 condemned']);
});

test('rolling update goes from the highest ordinal down to the partition, waiting for health', () => {
  const revs = { currentRevision: 'web-old', updateRevision: 'web-new', partition: 1 };
  assert.deepEqual(plan([pod(0), pod(1), pod(2)], revs), ['delete 2 update']);
  assert.deepEqual(plan([pod(0), pod(1), pod(2, { revision: 'web-new', ready: false })], revs), []);
  assert.deepEqual(plan([pod(0), pod(1), pod(2, { revision: 'web-new' })], revs), ['delete 1 update']);
  assert.deepEqual(plan([pod(0), pod(1, { revision: 'web-new' }), pod(2, { revision: 'web-new' })], revs), [], 'ordinal 0 is below the partition');
  // A missing pod below the partition comes back at the current revision, above it at the update revision.
  assert.deepEqual(plan([], revs), ['create 0 current']);
  assert.deepEqual(plan([pod(0)], revs), ['create 1 update']);
  assert.deepEqual(plan([pod(0), pod(1), pod(2)], { ...revs, updateStrategy: 'OnDelete' }), []);
});

test('minReadySeconds holds the next ordinal until the previous is available', () => {
  const p = pod(0);
  p.status!.conditions![0].lastTransitionTime = '2024-01-01T00:00:00Z';
  assert.deepEqual(plan([p], { minReadySeconds: 10, now: Date.parse('2024-01-01T00:00:05Z') }), []);
  assert.deepEqual(plan([p], { minReadySeconds: 10, now: Date.parse('2024-01-01T00:00:10Z') }), ['create 1 update']);
});

test('stateful pods: identity labels, hostname, claims', () => {
  const set: StatefulSet = {
    metadata: { name: 'web', namespace: 'ns', uid: 'u' },
    spec: {
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }], volumes: [{ name: 'www', emptyDir: {} }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'] } }],
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
    },
  };
  const p = newStatefulSetPod(set, set.spec!.template, 2, 'web-abc');
  assert.equal(p.metadata?.name, 'web-2');
  assert.deepEqual(p.metadata?.labels, { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-2', 'apps.kubernetes.io/pod-index': '2', 'controller-revision-hash': 'web-abc' });
  assert.equal(p.spec?.hostname, 'web-2');
  assert.equal(p.spec?.subdomain, 'nginx');
  assert.deepEqual(p.spec?.volumes, [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-2' } }]);
  assert.equal(claimName('www', set, 2), 'www-web-2');
  const [pvc] = newPersistentVolumeClaims(set, 2);
  assert.equal(pvc.metadata?.name, 'www-web-2');
  assert.deepEqual(pvc.metadata?.labels, { app: 'web' });
  assert.equal(pvc.metadata?.ownerReferences?.[0].uid, 'u');
  assert.equal(podOrdinal(set, p), 2);
  assert.equal(podOrdinal(set, { metadata: { name: 'web-02' } }), undefined);
  assert.equal(podOrdinal(set, { metadata: { name: 'webx-1' } }), undefined);
});
