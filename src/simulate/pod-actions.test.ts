import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { completedStatus, nextPodAction, runningStatus } from './pod-actions.js';
import { PodAddresses } from './pod-addresses.js';
import { parseTaints } from './simulated-node.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const timing = { startDelayMs: 2000, jobPodDurationMs: 5000 };
const base: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { nodeName: 'sim-0', containers: [{ name: 'c', image: 'img' }] }, status: { phase: 'Pending' } };
const running = (p: Pod, ready = true): Pod => ({ ...p, status: runningStatus(p, { nowMs: T0 + 2000, podIP: '10.128.0.2', hostIP: '172.16.0.1', ready }) });
const job: Pod = { ...base, metadata: { ...base.metadata, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'j1' }] } };
const probed: Pod = { ...base, spec: { ...base.spec, containers: [{ name: 'c', readinessProbe: { initialDelaySeconds: 3 } }] } };

test('nextPodAction: the steps of a simulated pod', () => {
  const cases: [string, Pod, number, ReturnType<typeof nextPodAction>][] = [
    ['pending, before the start delay', base, T0 + 1000, { kind: 'wait', atMs: T0 + 2000 }],
    ['pending, after the start delay', base, T0 + 2000, { kind: 'start' }],
    ['running and ready', running(base), T0 + 60_000, { kind: 'none' }],
    ['running, probe delay not over', running(probed, false), T0 + 3000, { kind: 'wait', atMs: T0 + 5000 }],
    ['running, probe delay over', running(probed, false), T0 + 5000, { kind: 'ready' }],
    ['a job pod still running', running(job), T0 + 3000, { kind: 'wait', atMs: T0 + 7000 }],
    ['a job pod done', running(job), T0 + 7000, { kind: 'complete' }],
    ['succeeded', { ...job, status: completedStatus(running(job), T0 + 7000) }, T0 + 9000, { kind: 'none' }],
    ['terminating', { ...running(base), metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:01:00Z' } }, T0, { kind: 'finish-deletion' }],
    ['terminating while pending', { ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:01:00Z' } }, T0, { kind: 'finish-deletion' }],
  ];
  for (const [what, pod, now, want] of cases) assert.deepEqual(nextPodAction(pod, T0, now, timing), want, what);
});

test('runningStatus keeps the scheduler\'s condition; completedStatus reports exit 0 and not ready', () => {
  const scheduled: Pod = { ...base, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-12-31T23:59:59Z' }] } };
  const s = runningStatus(scheduled, { nowMs: T0, podIP: '10.128.0.2', hostIP: '172.16.0.1', ready: true });
  assert.deepEqual(s.conditions?.map((c) => [c.type, c.status]), [['PodScheduled', 'True'], ['PodReadyToStartContainers', 'True'], ['Initialized', 'True'], ['Ready', 'True'], ['ContainersReady', 'True']]);
  assert.equal(s.startTime, '2026-01-01T00:00:00Z');
  assert.deepEqual(s.podIPs, [{ ip: '10.128.0.2' }]);
  const done = completedStatus({ ...scheduled, status: s }, T0 + 5000);
  assert.equal(done.phase, 'Succeeded');
  assert.equal(done.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodCompleted');
  assert.equal(done.containerStatuses?.[0]?.state?.terminated?.finishedAt, '2026-01-01T00:00:05Z');
});

test('PodAddresses hands out the lowest free address of the node\'s /24 and reuses released ones', () => {
  const a = new PodAddresses();
  assert.equal(a.assign(300, 'x'), '10.129.44.2');
  assert.equal(a.assign(300, 'y'), '10.129.44.3');
  assert.equal(a.assign(300, 'x'), '10.129.44.2');
  a.release(300, 'x');
  assert.equal(a.assign(300, 'z'), '10.129.44.2');
  a.claim(300, 'w', '10.129.44.4');
  assert.equal(a.assign(300, 'v'), '10.129.44.5');
});

test('parseTaints reads the kubelet\'s --register-with-taints form and refuses others', () => {
  assert.deepEqual(parseTaints('node.skiff.dev/simulated=true:NoSchedule,dedicated:NoExecute'), [
    { key: 'node.skiff.dev/simulated', value: 'true', effect: 'NoSchedule' },
    { key: 'dedicated', effect: 'NoExecute' },
  ]);
  assert.throws(() => parseTaints('a=b'), RangeError);
});
