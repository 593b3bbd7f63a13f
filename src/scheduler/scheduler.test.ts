import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { NODES, PODS } from '../api/resource-refs.js';
import { MetricsRegistry } from '../base/metrics/registry.js';
import { SharedInformerFactory } from '../client/cache/shared-informer-factory.js';
import { EventRecorder } from '../client/events/event-recorder.js';
import { waitFor } from '../client/testing/wait-for.js';
import { createLogger } from '../machinery/logger.js';
import { startTestApiServer, TestObjects, type TestApiServer } from '../testing/index.js';
import { defaultConfiguration } from './config/scheduler-configuration.js';
import { schedulerMetrics } from './metrics.js';
import { Scheduler } from './scheduler.js';

let api: TestApiServer;
let objects: TestObjects;
const stop = new AbortController();
let running: Promise<void>;
let recorder: EventRecorder;
let informers: SharedInformerFactory;

function node(name: string, cpu: string, extra: Partial<Node['spec']> = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: extra,
    status: {
      capacity: { cpu, memory: '4Gi', pods: '110' },
      allocatable: { cpu, memory: '4Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function pod(name: string, cpu: string): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }] } };
}

before(async () => {
  api = await startTestApiServer();
  objects = new TestObjects(api.client);
  const logger = createLogger('scheduler', {}, () => {});
  informers = new SharedInformerFactory(api.client);
  recorder = new EventRecorder({ client: api.client, component: 'default-scheduler' });
  const scheduler = new Scheduler({ client: api.client, informers, config: defaultConfiguration(), recorder, logger, metrics: schedulerMetrics(new MetricsRegistry()) });
  running = scheduler.run(stop.signal);
});

after(async () => {
  stop.abort();
  await running;
  await informers.shutdown();
  await recorder.stop();
  await api.stop();
});

test('against the real API server: a pod is bound to the node it fits, one that fits nowhere is marked Unschedulable', async () => {
  await objects.put(NODES, node('small', '1'));
  await objects.put(NODES, node('big', '8'));
  await objects.put(NODES, node('tainted', '64', { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] }));
  const pods = api.client.resource<Pod>(PODS).namespace('default');
  await pods.create(pod('fits-big', '4'));
  await pods.create(pod('too-big', '32'));

  await waitFor(async () => (await pods.get('fits-big')).spec?.nodeName === 'big', 'fits-big to be bound to big', 30_000);
  await waitFor(
    async () => (await pods.get('too-big')).status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable') ?? false,
    'too-big to be marked Unschedulable',
    30_000,
  );
  const unschedulable = await pods.get('too-big');
  assert.equal(unschedulable.spec?.nodeName, undefined);
  assert.match(unschedulable.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? '', /0\/3 nodes are available/);
});
