import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../api/object.js';
import { podTable } from './pods.js';

const NOW = new Date('2024-05-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const MIN = 60_000;

function pod(p: Partial<Pod> & { status?: Pod['status'] }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', creationTimestamp: ago(10 * MIN), ...p.metadata },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...p.spec },
    status: p.status,
  } as KubeObject;
}

/** NAME READY STATUS RESTARTS AGE */
function summary(obj: KubeObject): unknown[] {
  return podTable.cells(obj, NOW).slice(0, 5);
}

const running = { running: { startedAt: ago(MIN) } };

void test('running pod with one of two containers ready', () => {
  const p = pod({
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 0, image: '', imageID: '', state: running },
        { name: 'b', ready: false, restartCount: 0, image: '', imageID: '', state: running },
      ],
    },
  });
  assert.deepEqual(summary(p), ['p', '1/2', 'Running', '0', '10m']);
});

void test('init containers: progress, waiting reasons and failures', () => {
  const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'app' }] };
  const cs = (name: string, state: object) => ({ name, ready: false, restartCount: 0, image: '', imageID: '', state });
  const done = cs('i1', { terminated: { exitCode: 0, reason: 'Completed' } });
  const waitingInit = { containerStatuses: [cs('app', { waiting: { reason: 'PodInitializing' } })] };

  const first = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [cs('i1', running), cs('i2', { waiting: {} })] } });
  assert.equal(summary(first)[2], 'Init:0/2');

  const second = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [done, cs('i2', { waiting: { reason: 'PodInitializing' } })], ...waitingInit } });
  assert.equal(summary(second)[2], 'Init:1/2');

  const pull = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [done, cs('i2', { waiting: { reason: 'ImagePullBackOff' } })] } });
  assert.equal(summary(pull)[2], 'Init:ImagePullBackOff');

  const exit = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [cs('i1', { terminated: { exitCode: 2 } })] } });
  assert.equal(summary(exit)[2], 'Init:ExitCode:2');

  const signal = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [cs('i1', { terminated: { exitCode: 137, signal: 9 } })] } });
  assert.equal(summary(signal)[2], 'Init:Signal:9');

  const failed = pod({ spec, status: { phase: 'Pending', initContainerStatuses: [cs('i1', { terminated: { exitCode: 1, reason: 'Error' } })] } });
  assert.equal(summary(failed)[2], 'Init:Error');

  const initDone = pod({
    spec,
    status: { phase: 'Pending', initContainerStatuses: [done, cs('i2', { terminated: { exitCode: 0 } })], ...waitingInit },
  });
  assert.equal(summary(initDone)[2], 'PodInitializing');
});

void test('waiting reasons: ContainerCreating and CrashLoopBackOff with restart age', () => {
  const creating = pod({
    status: { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: '', imageID: '', state: { waiting: { reason: 'ContainerCreating' } } }] },
  });
  assert.deepEqual(summary(creating), ['p', '0/1', 'ContainerCreating', '0', '10m']);

  const crashing = pod({
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 5,
          image: '',
          imageID: '',
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * MIN) } },
        },
      ],
    },
  });
  assert.deepEqual(summary(crashing), ['p', '0/1', 'CrashLoopBackOff', '5 (5m ago)', '10m']);
});

void test('restarts without a last termination time are a bare number', () => {
  const p = pod({ status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 3, image: '', imageID: '', state: running }] } });
  assert.equal(summary(p)[3], '3');
});

void test('completed pods, and a completed container next to a running one', () => {
  const completed = pod({
    status: {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    },
  });
  assert.deepEqual(summary(completed), ['p', '0/1', 'Completed', '0', '10m']);
  assert.deepEqual(podTable.conditions(completed), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);

  const mixed = (ready: boolean) =>
    pod({
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [
          { name: 'a', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'b', ready: true, restartCount: 0, image: '', imageID: '', state: running },
        ],
      },
    });
  assert.equal(summary(mixed(true))[2], 'Running');
  assert.equal(summary(mixed(false))[2], 'NotReady');
  assert.equal(podTable.conditions(mixed(true)), undefined);
});

void test('deletion: Terminating, Unknown for lost nodes, finished pods keep their status', () => {
  const meta = { name: 'p', creationTimestamp: ago(10 * MIN), deletionTimestamp: ago(0) };
  const cs = [{ name: 'app', ready: true, restartCount: 0, image: '', imageID: '', state: running }];
  assert.equal(summary(pod({ metadata: meta, status: { phase: 'Running', containerStatuses: cs } }))[2], 'Terminating');
  assert.equal(summary(pod({ metadata: meta, status: { phase: 'Running', reason: 'NodeLost', containerStatuses: cs } }))[2], 'Unknown');
  const done = [{ name: 'app', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } }];
  assert.equal(summary(pod({ metadata: meta, status: { phase: 'Succeeded', containerStatuses: done } }))[2], 'Completed');
});

void test('sidecar init containers count towards READY once started', () => {
  const p = pod({
    spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, image: '', imageID: '', state: running }],
      containerStatuses: [{ name: 'app', ready: true, restartCount: 2, image: '', imageID: '', state: running }],
    },
  });
  assert.deepEqual(summary(p), ['p', '2/2', 'Running', '3', '10m']);
});

void test('scheduling gates and pod reasons override the phase', () => {
  const gated = pod({ status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } });
  assert.equal(summary(gated)[2], 'SchedulingGated');
  assert.equal(summary(pod({ status: { phase: 'Failed', reason: 'Evicted' } }))[2], 'Evicted');
  assert.equal(summary(pod({}))[2], '');
});

void test('wide cells: IP, node, nominated node and readiness gates', () => {
  const p = pod({
    spec: { nodeName: 'n1', containers: [{ name: 'app' }], readinessGates: [{ conditionType: 'a' }, { conditionType: 'b' }] },
    status: { phase: 'Running', podIP: '10.1.0.5', conditions: [{ type: 'a', status: 'True' }, { type: 'b', status: 'False' }] },
  });
  assert.deepEqual(podTable.cells(p, NOW).slice(5), ['10.1.0.5', 'n1', '<none>', '1/2']);
  assert.deepEqual(podTable.cells(pod({}), NOW).slice(5), ['<none>', '<none>', '<none>', '<none>']);
  assert.equal(podTable.columns.length, 9);
  assert.deepEqual(
    podTable.columns.map((c) => [c.name, c.priority]),
    [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]],
  );
});
