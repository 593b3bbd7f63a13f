import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findKind } from '../resources.js';
import type { KubeObject } from '../object.js';
import { applyDefaults, generateJobSelector, setServiceIPFamilyDefaults } from './index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions walk the defaulted JSON freely.
type Json = Record<string, any>;

function defaulted(group: string, kind: string, obj: KubeObject): Json {
  applyDefaults(obj, findKind(group, 'v1', kind)!);
  return obj as Json;
}
const template = () => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

test('deployment defaults, including the template pod spec', () => {
  const d = defaulted('apps', 'Deployment', { spec: { selector: { matchLabels: { app: 'a' } }, template: template() } });
  assert.equal(d.spec.replicas, 1);
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(d.spec.revisionHistoryLimit, 10);
  assert.equal(d.spec.progressDeadlineSeconds, 600);
  assert.equal(d.spec.template.spec.restartPolicy, 'Always');
  assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'Always');
  // enableServiceLinks is a Pod-only default upstream.
  assert.equal(d.spec.template.spec.enableServiceLinks, undefined);
});

test('statefulset and daemonset defaults', () => {
  const s = defaulted('apps', 'StatefulSet', { spec: { template: template(), volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: {} }] } });
  assert.equal(s.spec.replicas, 1);
  assert.equal(s.spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(s.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(s.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.equal(s.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
  assert.equal(s.spec.volumeClaimTemplates[0].status.phase, 'Pending');
  const ds = defaulted('apps', 'DaemonSet', { spec: { template: template() } });
  assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(ds.spec.revisionHistoryLimit, 10);
});

test('job defaults and the generated selector', () => {
  const j = defaulted('batch', 'Job', { metadata: { name: 'pi', uid: 'u-1' }, spec: { template: template() } });
  assert.equal(j.spec.completions, 1);
  assert.equal(j.spec.parallelism, 1);
  assert.equal(j.spec.backoffLimit, 6);
  assert.equal(j.spec.completionMode, 'NonIndexed');
  assert.equal(j.spec.suspend, false);
  assert.equal(j.spec.podReplacementPolicy, 'TerminatingOrFailed');
  assert.deepEqual(j.metadata.labels, { app: 'a' });
  generateJobSelector(j);
  assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  assert.deepEqual(j.spec.template.metadata.labels, {
    app: 'a',
    'job-name': 'pi',
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': 'u-1',
    'batch.kubernetes.io/controller-uid': 'u-1',
  });
  const parallel = defaulted('batch', 'Job', { spec: { parallelism: 3, template: template() } });
  assert.equal(parallel.spec.completions, undefined);
});

test('cronjob defaults', () => {
  const c = defaulted('batch', 'CronJob', { spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template() } } } });
  assert.equal(c.spec.concurrencyPolicy, 'Allow');
  assert.equal(c.spec.suspend, false);
  assert.equal(c.spec.successfulJobsHistoryLimit, 3);
  assert.equal(c.spec.failedJobsHistoryLimit, 1);
  assert.equal(c.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
  assert.equal(c.spec.jobTemplate.spec.backoffLimit, undefined);
});

test('service defaults and IP families', () => {
  const s = defaulted('', 'Service', { spec: { ports: [{ port: 80 }, { port: 443, targetPort: 'https' }] } });
  assert.equal(s.spec.type, 'ClusterIP');
  assert.equal(s.spec.sessionAffinity, 'None');
  assert.equal(s.spec.internalTrafficPolicy, 'Cluster');
  assert.deepEqual(s.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 443, protocol: 'TCP', targetPort: 'https' }]);
  assert.equal(s.spec.ipFamilies, undefined);
  s.spec.clusterIP = '10.96.0.10';
  setServiceIPFamilyDefaults(s);
  assert.deepEqual([s.spec.clusterIPs, s.spec.ipFamilyPolicy, s.spec.ipFamilies], [['10.96.0.10'], 'SingleStack', ['IPv4']]);
  const np = defaulted('', 'Service', { spec: { type: 'NodePort', ports: [{ port: 80 }] } });
  assert.equal(np.spec.externalTrafficPolicy, 'Cluster');
});

test('core defaults: namespace, secret, PV/PVC, priority class, endpoint slice', () => {
  const ns = defaulted('', 'Namespace', { metadata: { name: 'team' } });
  assert.deepEqual([ns.status.phase, ns.spec.finalizers, ns.metadata.labels], ['Active', ['kubernetes'], { 'kubernetes.io/metadata.name': 'team' }]);
  assert.equal(defaulted('', 'Secret', {}).type, 'Opaque');
  const pv = defaulted('', 'PersistentVolume', { spec: {} });
  assert.deepEqual([pv.status.phase, pv.spec.persistentVolumeReclaimPolicy, pv.spec.volumeMode], ['Pending', 'Retain', 'Filesystem']);
  const pvc = defaulted('', 'PersistentVolumeClaim', { spec: {} });
  assert.deepEqual([pvc.status.phase, pvc.spec.volumeMode], ['Pending', 'Filesystem']);
  assert.equal(defaulted('scheduling.k8s.io', 'PriorityClass', { value: 1 }).preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(defaulted('discovery.k8s.io', 'EndpointSlice', { ports: [{ port: 80 }] }).ports, [{ port: 80, name: '', protocol: 'TCP' }]);
});
