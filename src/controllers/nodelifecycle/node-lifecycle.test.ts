import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { assessNodeHealth } from './node-health.js';
import { desiredNoScheduleTaints, reconcileNoScheduleTaints, withNoExecuteTaint } from './node-taints.js';
import { computeZoneState, evictionRateFor, zoneOf } from './zone-state.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const timeouts = { gracePeriodMs: 40_000, startupGracePeriodMs: 60_000 };

function node(ready: string | undefined, heartbeat = '2026-01-01T00:00:00Z', extra: Partial<Node> = {}): Node {
  const conditions = ready ? [{ type: 'Ready', status: ready, reason: 'KubeletReady', lastHeartbeatTime: heartbeat }, { type: 'MemoryPressure', status: 'False' }] : [];
  return { metadata: { name: 'n1', creationTimestamp: '2026-01-01T00:00:00Z' }, status: { conditions }, ...extra };
}

function lease(renewTime: string): Lease {
  return { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { renewTime } };
}

test('a node whose heartbeats stop turns Unknown only after the grace period', () => {
  const first = assessNodeHealth(node('True'), lease('2026-01-01T00:00:00.000000Z'), undefined, T0, timeouts);
  assert.equal(first.ready, 'True');
  assert.equal(first.conditions, undefined);
  const within = assessNodeHealth(node('True'), lease('2026-01-01T00:00:00.000000Z'), first.health, T0 + 40_000, timeouts);
  assert.equal(within.ready, 'True');
  const after = assessNodeHealth(node('True'), lease('2026-01-01T00:00:00.000000Z'), within.health, T0 + 40_001, timeouts);
  assert.equal(after.ready, 'Unknown');
  const ready = after.conditions!.find((c) => c.type === 'Ready')!;
  assert.deepEqual([ready.status, ready.reason, ready.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
  assert.equal(ready.lastHeartbeatTime, '2026-01-01T00:00:00Z', 'the last heartbeat is kept');
  assert.equal(after.conditions!.find((c) => c.type === 'MemoryPressure')!.status, 'Unknown');
  for (const type of ['DiskPressure', 'PIDPressure']) assert.equal(after.conditions!.find((c) => c.type === type)!.reason, 'NodeStatusNeverUpdated');
  // already Unknown: nothing more to write
  const again = assessNodeHealth({ ...node('True'), status: { conditions: after.conditions } }, lease('2026-01-01T00:00:00.000000Z'), after.health, T0 + 50_000, timeouts);
  assert.equal(again.ready, 'Unknown');
  assert.equal(again.conditions, undefined);
});

test('a lease renewal alone keeps the node alive', () => {
  let h = assessNodeHealth(node('True'), lease('2026-01-01T00:00:00.000000Z'), undefined, T0, timeouts).health;
  h = assessNodeHealth(node('True'), lease('2026-01-01T00:00:30.000000Z'), h, T0 + 30_000, timeouts).health;
  const later = assessNodeHealth(node('True'), lease('2026-01-01T00:00:30.000000Z'), h, T0 + 60_000, timeouts);
  assert.equal(later.ready, 'True');
  assert.equal(assessNodeHealth(node('True'), lease('2026-01-01T00:00:30.000000Z'), h, T0 + 70_001, timeouts).ready, 'Unknown');
});

test('a node that never posted status gets the startup grace period from its creation', () => {
  assert.equal(assessNodeHealth(node(undefined), undefined, undefined, T0 + 59_000, timeouts).conditions, undefined);
  const late = assessNodeHealth(node(undefined), undefined, undefined, T0 + 61_000, timeouts);
  assert.equal(late.ready, 'Unknown');
  assert.equal(late.conditions!.find((c) => c.type === 'Ready')!.reason, 'NodeStatusNeverUpdated');
});

test('NoSchedule taints follow conditions and unschedulable, leaving other taints alone', () => {
  const n = node('Unknown', undefined, { spec: { unschedulable: true, taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } });
  const desired = desiredNoScheduleTaints(n);
  assert.deepEqual(desired.map((t) => t.key), ['node.kubernetes.io/unreachable', 'node.kubernetes.io/unschedulable']);
  const taints = reconcileNoScheduleTaints(n, desired)!;
  assert.deepEqual(taints.map((t) => t.key), ['dedicated', 'node.kubernetes.io/unreachable', 'node.kubernetes.io/unschedulable']);
  assert.equal(reconcileNoScheduleTaints({ ...n, spec: { ...n.spec, taints } }, desired), undefined);
});

test('the NoExecute taint is stamped when added and swapped or removed as readiness changes', () => {
  const tainted = withNoExecuteTaint(node('Unknown'), 'node.kubernetes.io/unreachable', T0)!;
  assert.deepEqual(tainted, [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }]);
  const n = node('False', undefined, { spec: { taints: tainted } });
  assert.equal(withNoExecuteTaint(n, 'node.kubernetes.io/unreachable', T0 + 1000), undefined);
  assert.deepEqual(withNoExecuteTaint(n, 'node.kubernetes.io/not-ready', T0 + 1000)!.map((t) => t.key), ['node.kubernetes.io/not-ready']);
  assert.deepEqual(withNoExecuteTaint(n, undefined, T0), []);
});

test('zone states and eviction rates as upstream', () => {
  assert.equal(computeZoneState(['True', 'Unknown'], 0.55), 'Normal');
  assert.equal(computeZoneState(['Unknown', 'False'], 0.55), 'FullDisruption');
  assert.equal(computeZoneState(['True', 'Unknown', 'Unknown', 'False'], 0.55), 'PartialDisruption');
  assert.equal(computeZoneState(['True', 'True', 'Unknown', 'Unknown', 'False', 'True', 'True'], 0.55), 'Normal');
  const o = { rate: 0.1, secondaryRate: 0.01, largeClusterThreshold: 50 };
  assert.equal(evictionRateFor('PartialDisruption', 10, o), 0);
  assert.equal(evictionRateFor('PartialDisruption', 51, o), 0.01);
  assert.equal(evictionRateFor('Normal', 10, o), 0.1);
  assert.equal(zoneOf(node('True')), '');
  assert.equal(zoneOf({ metadata: { labels: { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' } } }), 'r:\x00:z');
});
