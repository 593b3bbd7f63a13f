import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec } from 'kubernetes-types/autoscaling/v2.js';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { CUSTOM_RESOURCE_DEFINITIONS, DEPLOYMENTS, EVENTS, HORIZONTAL_POD_AUTOSCALERS, PODS } from '../../api/resource-refs.js';
import { FakeClock } from '../../base/fake-clock.js';
import { Lister } from '../../client/cache/lister.js';
import { MapIndexer } from '../../client/cache/map-indexer.js';
import { EventRecorder } from '../../client/events/event-recorder.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { HorizontalReconciler } from './horizontal-reconciler.js';
import type { PodMetricsObject } from './pod-metrics.js';

let api: TestApiServer;
let recorder: EventRecorder;
let clock: FakeClock;
/** Each pod's cpu usage in millicores, as the fake metrics source reports it. */
let usage: Map<string, number>;
/** undefined: the real metrics.k8s.io (not served by the test server). */
let metricsServed: boolean;
let reconciler: HorizontalReconciler;
const hpaIndex = new MapIndexer<HorizontalPodAutoscaler>();
const podIndex = new MapIndexer<Pod>();

const hpas = () => api.client.resource<HorizontalPodAutoscaler>(HORIZONTAL_POD_AUTOSCALERS).namespace('ns');
const deployments = () => api.client.resource<Deployment>(DEPLOYMENTS).namespace('ns');
const pods = () => api.client.resource<Pod>(PODS).namespace('ns');

beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['ns'] });
  recorder = new EventRecorder({ client: api.client, component: 'horizontal-pod-autoscaler' });
  clock = new FakeClock(Date.now());
  usage = new Map();
  metricsServed = true;
  const podMetrics = async (namespace: string): Promise<PodMetricsObject[]> => {
    if (!metricsServed) return (await api.client.resource<PodMetricsObject>({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods' }).namespace(namespace).list()).items;
    return [...usage].map(([name, cpu]) => ({ metadata: { name }, timestamp: new Date(clock.now() - 5_000).toISOString(), window: '10s', containers: [{ name: 'c', usage: { cpu: `${cpu}m`, memory: '10Mi' } }] }));
  };
  reconciler = new HorizontalReconciler({
    client: api.client,
    recorder,
    hpas: new Lister(hpaIndex),
    pods: new Lister(podIndex),
    clock,
    syncPeriodMs: 15_000,
    downscaleStabilizationMs: 300_000,
    tolerance: 0.1,
    cpuInitializationPeriodMs: 300_000,
    initialReadinessDelayMs: 30_000,
    podMetrics,
  });
});
afterEach(async () => {
  await recorder.stop();
  await api.stop();
});

async function reconcile(): Promise<HorizontalPodAutoscaler> {
  hpaIndex.replace((await hpas().list()).items, '');
  podIndex.replace((await pods().list()).items, '');
  const result = await reconciler.reconcile('ns/web', new AbortController().signal);
  assert.deepEqual(result, { requeueAfter: 15_000 });
  return hpas().get('web');
}

async function deployment(replicas: number, requests: Record<string, string> = { cpu: '100m' }): Promise<void> {
  await deployments().create({
    metadata: { name: 'web' },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests } }] } } },
  });
}

/** A running pod, ready since an hour before the fake clock (past every initialization period). */
async function runningPod(name: string, cpu: number | undefined, requests: Record<string, string> = { cpu: '100m' }): Promise<void> {
  const created = await pods().create({ metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests } }] } });
  const longAgo = new Date(clock.now() - 3_600_000).toISOString();
  await pods().updateStatus({ ...created, status: { phase: 'Running', startTime: longAgo, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: longAgo }] } });
  if (cpu !== undefined) usage.set(name, cpu);
}

async function hpa(spec: Partial<HorizontalPodAutoscalerSpec> = {}): Promise<void> {
  await hpas().create({
    metadata: { name: 'web' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }], ...spec },
  });
}

const condition = (h: HorizontalPodAutoscaler, type: string) => {
  const c = h.status?.conditions?.find((x) => x.type === type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

async function events(): Promise<string[]> {
  await recorder.flush();
  return (await api.client.resource<Event>(EVENTS).namespace('ns').list()).items.map((e) => `${e.type} ${e.reason} ${e.message}`);
}

test('cpu over the target scales the deployment up through /scale, with status, conditions and the SuccessfulRescale event', async () => {
  await deployment(2);
  await runningPod('a', 90);
  await runningPod('b', 110);
  await hpa();
  const h = await reconcile();
  // 100% of the request against 50% → 2 × 2
  assert.equal((await deployments().get('web')).spec?.replicas, 4);
  assert.equal(h.status?.currentReplicas, 2);
  assert.equal(h.status?.desiredReplicas, 4);
  assert.ok(h.status?.lastScaleTime);
  assert.deepEqual(h.status?.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '100m' } } }]);
  assert.deepEqual(condition(h, 'AbleToScale'), { status: 'True', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 4' });
  assert.deepEqual(condition(h, 'ScalingActive'), { status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
  assert.deepEqual(condition(h, 'ScalingLimited'), { status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' });
  assert.ok((await events()).includes('Normal SuccessfulRescale New size: 4; reason: cpu resource utilization (percentage of request) above target'));
});

test('a scale down waits for the stabilization window; behavior with window 0 scales down at once', async () => {
  await deployment(2);
  await runningPod('a', 10);
  await runningPod('b', 10);
  await hpa();
  let h = await reconcile();
  assert.equal((await deployments().get('web')).spec?.replicas, 2);
  assert.deepEqual(condition(h, 'AbleToScale'), { status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
  assert.equal(h.status?.desiredReplicas, 2);
  await hpas().patch('web', { spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } }, 'merge');
  await clock.advance(15_000);
  h = await reconcile();
  assert.equal((await deployments().get('web')).spec?.replicas, 1);
  assert.equal(h.status?.desiredReplicas, 1);
  assert.ok((await events()).includes('Normal SuccessfulRescale New size: 1; reason: All metrics below target'));
});

test('bad input: a missing target is FailedGetScale; the replicas are left alone', async () => {
  await hpa();
  const h = await reconcile();
  assert.deepEqual(condition(h, 'AbleToScale'), { status: 'False', reason: 'FailedGetScale', message: 'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found' });
  assert.ok((await events()).includes('Warning FailedGetScale deployments.apps "web" not found'));
  await hpas().patch('web', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Nonsense', name: 'web' } } }, 'merge');
  const unknown = await reconcile();
  assert.equal(condition(unknown, 'AbleToScale')?.message, 'the HPA controller was unable to get the target\'s current scale: no matches for kind "Nonsense" in group "apps"');
});

test('bad input: pods without requests, unserved custom metrics and no metrics API give upstream conditions and events', async () => {
  await deployment(1);
  await runningPod('a', 50, {});
  await hpa();
  let h = await reconcile();
  assert.deepEqual(condition(h, 'ScalingActive'), { status: 'False', reason: 'FailedGetResourceMetric', message: 'the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container c of Pod a' });
  assert.equal(h.status?.currentReplicas, 1);
  const ev = await events();
  assert.ok(ev.includes('Warning FailedGetResourceMetric failed to get cpu utilization: missing request for cpu in container c of Pod a'), ev.join('\n'));
  assert.ok(ev.includes('Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container c of Pod a'), ev.join('\n'));

  await hpas().patch('web', { spec: { metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }] } }, 'merge');
  h = await reconcile();
  assert.equal(condition(h, 'ScalingActive')?.reason, 'FailedGetPodsMetric');
  assert.match(condition(h, 'ScalingActive')?.message ?? '', /unable to get metric qps: unable to fetch metrics from custom metrics API/);

  metricsServed = false;
  await hpas().patch('web', { spec: { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }] } }, 'merge');
  h = await reconcile();
  assert.equal(condition(h, 'ScalingActive')?.reason, 'FailedGetResourceMetric');
  assert.match(condition(h, 'ScalingActive')?.message ?? '', /^the HPA was unable to compute the replica count: failed to get memory usage: unable to get metrics for resource memory: unable to fetch metrics from resource metrics API: /);
  assert.equal((await deployments().get('web')).spec?.replicas, 1);
});

test('min/max and zero replicas: below min rescales, zero disables scaling', async () => {
  await deployment(0);
  await hpa({ minReplicas: 2 });
  let h = await reconcile();
  assert.deepEqual(condition(h, 'ScalingActive'), { status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
  assert.equal((await deployments().get('web')).spec?.replicas, 0);
  await deployments().patch('web', { spec: { replicas: 1 } }, 'merge');
  h = await reconcile();
  assert.equal((await deployments().get('web')).spec?.replicas, 2);
  assert.ok((await events()).includes('Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas'));
  assert.equal(h.status?.desiredReplicas, 2);
});

test('a deleted autoscaler is forgotten and not requeued', async () => {
  hpaIndex.replace([], '');
  assert.equal(await reconciler.reconcile('ns/gone', new AbortController().signal), undefined);
});

test('a custom resource with a scale subresource is a target too (found through discovery)', async () => {
  const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
  await api.client.resource(CUSTOM_RESOURCE_DEFINITIONS).create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      }],
    },
  } as CustomResourceDefinition);
  const crs = () => api.client.resource<{ apiVersion: string; kind: string; metadata: { name: string }; spec: { replicas: number }; status?: object }>(widgets, { namespaced: true }).namespace('ns');
  const deadline = Date.now() + 10_000;
  while (!(await crs().list().then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error('widgets not served in time');
    await new Promise((r) => setTimeout(r, 50));
  }
  const w = await crs().create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'web' }, spec: { replicas: 2 } });
  await crs().updateStatus({ ...w, status: { replicas: 2, selector: 'app=web' } });
  await runningPod('a', 90);
  await runningPod('b', 110);
  await hpa({ scaleTargetRef: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'web' } });
  const h = await reconcile();
  assert.equal((await crs().get('web')).spec.replicas, 4);
  assert.equal(condition(h, 'AbleToScale')?.reason, 'SucceededRescale');
});
