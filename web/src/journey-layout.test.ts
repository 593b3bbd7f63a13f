import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SpanRecord, TraceRecord } from '../../src/trace/journey.js';
import { layoutJourney } from './journey-layout.js';

function span(id: string, parent: string | undefined, component: string, hop: string, start: number, attributes: Record<string, string> = {}): SpanRecord {
  return {
    traceId: 't',
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name: `${hop} ${id}`,
    component,
    kind: hop === 'request' ? 'server' : 'internal',
    hop,
    startTime: '',
    start,
    durationMs: 2,
    attributes,
    links: [],
    events: [],
    status: 'Unset',
  };
}

const trace: TraceRecord = {
  traceId: 't',
  start: 100,
  durationMs: 50,
  criticalPath: ['req', 'watch', 'rec', 'req2'],
  spans: [
    span('req', undefined, 'kube-apiserver', 'request', 100, { 'k8s.verb': 'create', 'k8s.resource': 'deployments.apps', 'k8s.object.name': 'web', 'k8s.resource_version': '7' }),
    span('authz', 'req', 'kube-apiserver', 'authorization', 101),
    span('commit', 'req', 'kube-apiserver', 'storage', 102, { 'k8s.resource_version': '7' }),
    span('watch', 'commit', 'kube-controller-manager', 'watch', 110, { 'skiff.watch.event': 'ADDED', 'k8s.resource': 'deployments.apps', 'k8s.object.name': 'web', 'skiff.watch.delay_ms': '3' }),
    span('rec', 'watch', 'kube-controller-manager', 'reconcile', 111),
    span('req2', 'rec', 'kube-apiserver', 'request', 112, { 'k8s.verb': 'create', 'k8s.resource': 'replicasets.apps' }),
    span('w2', 'req2', 'kubelet', 'watch', 120, { 'skiff.watch.event': 'ADDED', 'k8s.resource': 'pods' }),
  ],
};

test('a kubectl create becomes a call from the client lane, then commit, watch delivery, reconcile and its own call', () => {
  const { steps, lanes } = layoutJourney(trace);
  assert.deepEqual(
    steps.map((s) => [s.kind, s.from, s.to, s.label]),
    [
      ['call', 'client', 'kube-apiserver', 'create deployments.apps web'],
      ['commit', 'kube-apiserver', 'storage', 'commit write'],
      ['watch', 'kube-apiserver', 'kube-controller-manager', 'watch ADDED deployments.apps web'],
      ['work', 'kube-controller-manager', 'kube-controller-manager', 'reconcile rec'],
      ['call', 'kube-controller-manager', 'kube-apiserver', 'create replicasets.apps'],
      ['watch', 'kube-apiserver', 'kubelet', 'watch ADDED pods'],
    ],
  );
  assert.equal(steps[0]!.detail, 'RV 7 · 2.0 ms');
  assert.equal(steps[2]!.detail, 'delay 3.0 ms');
  assert.deepEqual(steps.filter((s) => s.critical).map((s) => s.spanId), ['req', 'watch', 'rec', 'req2']);
  assert.equal(steps[2]!.offsetMs, 10);
  assert.deepEqual(lanes.map((l) => l.id).slice(0, 7), ['client', 'kube-apiserver', 'storage', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'kube-proxy']);
});

test('API server stages appear only when asked for; unknown components get a lane of their own', () => {
  assert.ok(layoutJourney(trace, { stages: true }).steps.some((s) => s.kind === 'stage' && s.label === 'authorization'));
  const other: TraceRecord = { ...trace, spans: [span('x', undefined, 'skiff-dns', 'work', 100)], criticalPath: [] };
  const layout = layoutJourney(other);
  assert.equal(layout.lanes.at(-1)!.id, 'skiff-dns');
  assert.deepEqual(layout.steps.map((s) => [s.from, s.to]), [['skiff-dns', 'skiff-dns']]);
});
