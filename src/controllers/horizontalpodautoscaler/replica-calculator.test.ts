import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { rawResourceReplicas, ReplicaCalculationError, resourceReplicas, type PodMetrics } from './replica-calculator.js';

const NOW = Date.parse('2024-01-01T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** A running, ready pod started an hour ago (well past the cpu initialization period), asking `cpu` of cpu. */
function pod(name: string, o: { cpu?: string; ready?: boolean; phase?: string; startedAgoMs?: number; readySinceAgoMs?: number; deleting?: boolean } = {}): Pod {
  const started = NOW - (o.startedAgoMs ?? 3_600_000);
  return {
    metadata: { name, namespace: 'default', ...(o.deleting ? { deletionTimestamp: iso(NOW) } : {}) },
    spec: { containers: [{ name: 'c', image: 'x', resources: o.cpu === undefined ? {} : { requests: { cpu: o.cpu } } }] },
    status: {
      phase: o.phase ?? 'Running',
      startTime: iso(started),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(NOW - (o.readySinceAgoMs ?? 3_500_000)) }],
    },
  };
}

function metrics(values: Record<string, number>, timestamp = NOW - 10_000): PodMetrics {
  return new Map(Object.entries(values).map(([n, v]) => [n, { value: v, timestamp, windowMs: 15_000 }]));
}

const input = (currentReplicas: number, pods: Pod[], m: PodMetrics) => ({ currentReplicas, pods, metrics: m, resource: 'cpu', container: '', now: NOW });

test('scale up: average utilization over the target grows the count by the ratio, rounded up', () => {
  const pods = ['a', 'b', 'c'].map((n) => pod(n, { cpu: '1' }));
  const r = resourceReplicas(input(3, pods, metrics({ a: 300, b: 500, c: 700 })), 30);
  assert.deepEqual(r, { replicas: 5, utilization: 50, rawAverage: 500 });
});

test('scale down: under the target shrinks the count', () => {
  const pods = ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n, { cpu: '1' }));
  const r = resourceReplicas(input(5, pods, metrics({ a: 100, b: 300, c: 500, d: 250, e: 250 })), 50);
  assert.equal(r.replicas, 3);
  assert.equal(r.utilization, 28);
});

test('within the tolerance (0.1) the count stays', () => {
  const pods = ['a', 'b', 'c'].map((n) => pod(n, { cpu: '1' }));
  assert.equal(resourceReplicas(input(3, pods, metrics({ a: 540, b: 540, c: 540 })), 50).replicas, 3);
  assert.equal(resourceReplicas(input(3, pods, metrics({ a: 560, b: 560, c: 560 })), 50).replicas, 4);
  assert.equal(resourceReplicas(input(3, pods, metrics({ a: 560, b: 560, c: 560 })), 50, { tolerance: 0.2, cpuInitializationPeriodMs: 0, initialReadinessDelayMs: 0 }).replicas, 3);
});

test('unready pods count as 0% on a scale up', () => {
  const pods = [pod('a', { cpu: '1', ready: false, startedAgoMs: 60_000, readySinceAgoMs: 50_000 }), pod('b', { cpu: '1' }), pod('c', { cpu: '1' })];
  const r = resourceReplicas(input(3, pods, metrics({ a: 300, b: 500, c: 700 })), 30);
  // ready pods alone: 60% → 2x; with the unready one at 0: 40% → ceil(1.33 × 3)
  assert.deepEqual(r, { replicas: 4, utilization: 60, rawAverage: 600 });
});

test('pending pods are unready; deleted and failed pods are ignored', () => {
  const pods = [pod('a', { cpu: '1', phase: 'Pending' }), pod('b', { cpu: '1' }), pod('c', { cpu: '1', deleting: true }), pod('d', { cpu: '1', phase: 'Failed' })];
  const r = resourceReplicas(input(4, pods, metrics({ b: 1000, c: 1000, d: 1000 })), 50);
  // b alone is at 2x; a at 0 → 50% of 2 pods → ratio 1 → keep the count
  assert.equal(r.replicas, 4);
});

test('a young pod whose sample predates its readiness is unready for cpu (and counts as ready for memory)', () => {
  const young = pod('a', { cpu: '1', startedAgoMs: 60_000, readySinceAgoMs: 5_000 });
  const pods = [young, pod('b', { cpu: '1' })];
  const m = metrics({ a: 1000, b: 1500 });
  // cpu: a is unready → b alone at 300% of the target → up; a at 0 → 75% → ceil(1.5 × 2)
  assert.equal(resourceReplicas(input(2, pods, m), 50).replicas, 3);
  const mem = pods.map((p) => ({ ...p, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { memory: '1000m' } } }] } }));
  assert.equal(resourceReplicas({ ...input(2, mem, m), resource: 'memory' }, 50).replicas, 5);
  // past the initialization period a ready pod counts whatever its sample's age
  const old = pod('a', { cpu: '1', startedAgoMs: 600_000, readySinceAgoMs: 5_000 });
  assert.equal(resourceReplicas(input(2, [old, pods[1]], metrics({ a: 200, b: 200 })), 50).replicas, 1);
});

test('missing metrics: 100% of the request on a scale down, 0% on a scale up', () => {
  const pods = ['a', 'b', 'c', 'd'].map((n) => pod(n, { cpu: '1' }));
  // down: (300 + 1000) / 4000 = 32% of 50 → ceil(0.64 × 4)
  assert.equal(resourceReplicas(input(4, pods, metrics({ a: 100, b: 100, c: 100 })), 50).replicas, 3);
  // up: (3 × 900 + 0) / 4000 = 67% of 50 → ceil(1.34 × 4)
  assert.equal(resourceReplicas(input(4, pods, metrics({ a: 900, b: 900, c: 900 })), 50).replicas, 6);
  // a missing pod that turns a scale up into a scale down keeps the count
  assert.equal(resourceReplicas(input(4, pods, metrics({ a: 600, b: 600, c: 600 })), 50).replicas, 4);
});

test('errors carry upstream messages: no pods, no metrics, missing requests', () => {
  assert.throws(() => resourceReplicas(input(1, [], metrics({})), 50), { name: 'ReplicaCalculationError', message: 'no pods returned by selector while calculating replica count' });
  assert.throws(() => resourceReplicas(input(1, [pod('a', { cpu: '1', phase: 'Pending' })], metrics({ a: 1 })), 50), /did not receive metrics for targeted pods \(pods might be unready\)/);
  assert.throws(() => resourceReplicas(input(1, [pod('a')], metrics({ a: 1 })), 50), (e: unknown) => e instanceof ReplicaCalculationError && e.message === 'missing request for cpu in container c of Pod a');
});

test('AverageValue: usage per pod against the target value, no requests needed', () => {
  const pods = ['a', 'b'].map((n) => pod(n));
  assert.deepEqual(rawResourceReplicas(input(2, pods, metrics({ a: 400, b: 600 })), 250), { replicas: 4, average: 500 });
  assert.deepEqual(rawResourceReplicas(input(2, pods, metrics({ a: 100, b: 100 })), 250), { replicas: 1, average: 100 });
  // a missing pod is taken at the target on a scale down: (100 + 250) / 2 → ceil(0.7 × 2)
  assert.equal(rawResourceReplicas(input(2, pods, metrics({ a: 100 })), 250).replicas, 2);
});
