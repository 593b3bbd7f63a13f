import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podStatus, type ContainerRecord, type PodRuntimeView } from './pod-status.js';
import type { ContainerStatus } from '../runtime/runtime.js';

const rt = (state: ContainerStatus['state'], exitCode?: number): ContainerStatus => ({
  id: `id-${state}-${exitCode}`, sandboxId: 's', name: 'c', attempt: 0, image: 'busybox', state, createdAt: new Date(0), startedAt: new Date(0),
  ...(state === 'Exited' ? { finishedAt: new Date(1000), exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } : {}), logPath: '', labels: {},
});
const rec = (over: Partial<ContainerRecord>): ContainerRecord => ({ spec: { name: 'c', image: 'busybox' }, init: false, restartCount: 0, ready: true, started: true, ...over });
const view = (pod: Pod, containers: ContainerRecord[]): PodRuntimeView => ({ pod, containers, sandboxReady: true, podIP: '10.0.0.2', hostIP: '10.0.0.1', startTime: '2024-01-01T00:00:00Z', runtimeName: 'fake' });
const pod = (restartPolicy: string): Pod => ({ metadata: { name: 'p' }, spec: { restartPolicy, containers: [{ name: 'c' }] } });
const cond = (s: ReturnType<typeof podStatus>, t: string) => s.conditions?.find((c) => c.type === t);

test('a running ready container: Running, every condition True, podIP and hostIP set', () => {
  const s = podStatus(view(pod('Always'), [rec({ current: rt('Running') })]));
  assert.equal(s.phase, 'Running');
  for (const t of ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) assert.equal(cond(s, t)?.status, 'True', t);
  assert.equal(s.podIP, '10.0.0.2');
  assert.deepEqual(s.podIPs, [{ ip: '10.0.0.2' }]);
  assert.equal(s.containerStatuses?.[0].containerID, `fake://id-Running-undefined`);
});

test('not ready: Ready False with ContainersNotReady and the container list', () => {
  const s = podStatus(view(pod('Always'), [rec({ current: rt('Running'), ready: false })]));
  assert.equal(cond(s, 'Ready')?.reason, 'ContainersNotReady');
  assert.equal(cond(s, 'Ready')?.message, 'containers with unready status: [c]');
});

test('Never + exit 0 is Succeeded with PodCompleted; exit 1 is Failed', () => {
  const ok = podStatus(view(pod('Never'), [rec({ current: rt('Exited', 0) })]));
  assert.equal(ok.phase, 'Succeeded');
  assert.equal(cond(ok, 'Ready')?.reason, 'PodCompleted');
  assert.equal(ok.containerStatuses?.[0].state?.terminated?.reason, 'Completed');
  assert.equal(podStatus(view(pod('Never'), [rec({ current: rt('Exited', 1) })])).phase, 'Failed');
  assert.equal(podStatus(view(pod('OnFailure'), [rec({ current: rt('Exited', 1) })])).phase, 'Running');
});

test('CrashLoopBackOff: waiting state with the ended attempt as lastState; phase Running', () => {
  const s = podStatus(view(pod('Always'), [rec({ current: rt('Exited', 2), restartCount: 3, waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s' } })]));
  assert.equal(s.phase, 'Running');
  const c = s.containerStatuses![0];
  assert.equal(c.state?.waiting?.reason, 'CrashLoopBackOff');
  assert.equal(c.lastState?.terminated?.exitCode, 2);
  assert.equal(c.restartCount, 3);
  assert.equal(c.ready, false);
});

test('a never-started container is Pending/ContainerCreating; init containers gate Initialized', () => {
  const s = podStatus(view(pod('Always'), [rec({ init: true, spec: { name: 'init' }, current: rt('Running') }), rec({})]));
  assert.equal(s.phase, 'Pending');
  assert.equal(cond(s, 'Initialized')?.message, 'containers with incomplete status: [init]');
  assert.equal(s.containerStatuses?.[0].state?.waiting?.reason, 'ContainerCreating');
  assert.equal(s.initContainerStatuses?.length, 1);
});
