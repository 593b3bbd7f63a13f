import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerStatus } from '../runtime/runtime.js';
import { computePodActions, type ContainerView, type PodActions, type PodRuntimeState } from './compute-pod-actions.js';

const running = (id: string): ContainerStatus => ({ id, sandboxId: 'sb', name: id, attempt: 0, image: 'busybox', state: 'Running', createdAt: new Date(0), logPath: '', labels: {} });
const exited = (id: string, exitCode: number): ContainerStatus => ({ ...running(id), state: 'Exited', exitCode });
const created = (id: string): ContainerStatus => ({ ...running(id), state: 'Created' });

function pod(opts: { inits?: string[]; mains?: string[]; restartPolicy?: 'Always' | 'OnFailure' | 'Never'; deleting?: boolean; phase?: string } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u', ...(opts.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: {
      restartPolicy: opts.restartPolicy,
      initContainers: (opts.inits ?? []).map((name) => ({ name })),
      containers: (opts.mains ?? ['app']).map((name) => ({ name })),
    },
    status: opts.phase ? { phase: opts.phase } : {},
  };
}

const init = (name: string, current?: ContainerStatus): ContainerView => ({ name, init: true, current });
const main = (name: string, current?: ContainerStatus, unhealthy?: ContainerView['unhealthy']): ContainerView => ({ name, init: false, current, unhealthy });
const ready = { id: 'sb', ready: true };

const none: PodActions = { killPod: false, createSandbox: false, containersToStart: [], ephemeralContainersToStart: [], containersToKill: [] };
const ephemeral = (name: string, current?: ContainerStatus): ContainerView => ({ name, init: false, ephemeral: true, current });

const cases: { name: string; pod: Pod; state: PodRuntimeState; want: PodActions }[] = [
  {
    name: 'a new pod gets a sandbox and all its containers',
    pod: pod({ mains: ['a', 'b'] }),
    state: { containers: [main('a'), main('b')] },
    want: { ...none, createSandbox: true, containersToStart: ['a', 'b'] },
  },
  {
    name: 'a new pod with init containers starts only the first one',
    pod: pod({ inits: ['i1', 'i2'] }),
    state: { containers: [init('i1'), init('i2'), main('app')] },
    want: { ...none, createSandbox: true, nextInitContainer: 'i1' },
  },
  {
    name: 'the next init container starts once the one before succeeded',
    pod: pod({ inits: ['i1', 'i2'] }),
    state: { sandbox: ready, containers: [init('i1', exited('i1', 0)), init('i2'), main('app')] },
    want: { ...none, sandboxId: 'sb', nextInitContainer: 'i2' },
  },
  {
    name: 'nothing starts while an init container runs',
    pod: pod({ inits: ['i1'] }),
    state: { sandbox: ready, containers: [init('i1', running('i1')), main('app')] },
    want: { ...none, sandboxId: 'sb' },
  },
  {
    name: 'a failed init container is restarted under OnFailure',
    pod: pod({ inits: ['i1'], restartPolicy: 'OnFailure' }),
    state: { sandbox: ready, containers: [init('i1', exited('i1', 1)), main('app')] },
    want: { ...none, sandboxId: 'sb', nextInitContainer: 'i1' },
  },
  {
    name: 'a failed init container under Never fails the pod',
    pod: pod({ inits: ['i1'], restartPolicy: 'Never' }),
    state: { sandbox: ready, containers: [init('i1', exited('i1', 1)), main('app')] },
    want: { ...none, sandboxId: 'sb', killPod: true },
  },
  {
    name: 'app containers start once every init container succeeded',
    pod: pod({ inits: ['i1'], mains: ['a', 'b'] }),
    state: { sandbox: ready, containers: [init('i1', exited('i1', 0)), main('a'), main('b')] },
    want: { ...none, sandboxId: 'sb', containersToStart: ['a', 'b'] },
  },
  {
    name: 'running healthy containers need nothing',
    pod: pod(),
    state: { sandbox: ready, containers: [main('app', running('c1'))] },
    want: { ...none, sandboxId: 'sb' },
  },
  {
    name: 'an exited container restarts under Always',
    pod: pod(),
    state: { sandbox: ready, containers: [main('app', exited('c1', 0))] },
    want: { ...none, sandboxId: 'sb', containersToStart: ['app'] },
  },
  {
    name: 'OnFailure restarts a failure but not a success',
    pod: pod({ mains: ['ok', 'bad'], restartPolicy: 'OnFailure' }),
    state: { sandbox: ready, containers: [main('ok', exited('c1', 0)), main('bad', exited('c2', 2))] },
    want: { ...none, sandboxId: 'sb', containersToStart: ['bad'] },
  },
  {
    name: 'Never restarts nothing',
    pod: pod({ restartPolicy: 'Never' }),
    state: { sandbox: ready, containers: [main('app', exited('c1', 1))] },
    want: { ...none, sandboxId: 'sb' },
  },
  {
    name: 'a container created but never started is started again',
    pod: pod(),
    state: { sandbox: ready, containers: [main('app', created('c1'))] },
    want: { ...none, sandboxId: 'sb', containersToStart: ['app'] },
  },
  {
    name: 'a failing liveness probe kills the container',
    pod: pod({ mains: ['a', 'b'] }),
    state: { sandbox: ready, containers: [main('a', running('c1'), 'liveness'), main('b', running('c2'))] },
    want: { ...none, sandboxId: 'sb', containersToKill: [{ name: 'a', id: 'c1', message: 'Container a failed liveness probe, will be restarted' }] },
  },
  {
    name: 'a dead sandbox is replaced and every container starts over',
    pod: pod({ mains: ['a', 'b'] }),
    state: { sandbox: { id: 'sb', ready: false }, containers: [main('a', running('c1')), main('b', exited('c2', 0))] },
    want: { ...none, killPod: true, createSandbox: true, containersToStart: ['a', 'b'] },
  },
  {
    name: 'a dead sandbox of a finished restartPolicy Never pod is not replaced',
    pod: pod({ restartPolicy: 'Never' }),
    state: { sandbox: { id: 'sb', ready: false }, containers: [main('app', exited('c1', 0))] },
    want: { ...none, killPod: true },
  },
  {
    name: 'a pod being deleted is killed',
    pod: pod({ deleting: true }),
    state: { sandbox: ready, containers: [main('app', running('c1'))] },
    want: { ...none, killPod: true },
  },
  {
    name: 'a pod in a terminal phase is killed and nothing restarts',
    pod: pod({ phase: 'Failed' }),
    state: { sandbox: ready, containers: [main('app', exited('c1', 1))] },
    want: { ...none, killPod: true },
  },
  {
    name: 'an ephemeral container starts once the sandbox is ready, even before initialization completes',
    pod: pod({ inits: ['i1'] }),
    state: { sandbox: ready, containers: [init('i1', running('i1')), main('app'), ephemeral('debugger')] },
    want: { ...none, sandboxId: 'sb', ephemeralContainersToStart: ['debugger'] },
  },
  {
    name: 'an ephemeral container that ran is never restarted, nor does it hold back the app',
    pod: pod(),
    state: { sandbox: ready, containers: [main('app'), ephemeral('debugger', exited('debugger', 1))] },
    want: { ...none, sandboxId: 'sb', containersToStart: ['app'] },
  },
  {
    name: 'no ephemeral container starts in a sandbox being created',
    pod: pod(),
    state: { containers: [main('app'), ephemeral('debugger')] },
    want: { ...none, createSandbox: true, containersToStart: ['app'] },
  },
];

for (const c of cases) {
  test(`computePodActions: ${c.name}`, () => {
    assert.deepEqual(computePodActions(c.pod, c.state), c.want);
  });
}
