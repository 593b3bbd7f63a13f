import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { createLogger } from '../../machinery/logger.js';
import { FakeRuntime } from '../runtime/fake/fake-runtime.js';
import { PodWorker, type PodWorkerDeps } from './pod-worker.js';

async function until<T>(what: string, fn: () => T | undefined | false, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function setup(dir: string, extra: Partial<PodWorkerDeps> = {}) {
  const runtime = new FakeRuntime();
  const statuses: PodStatus[] = [];
  let worker: PodWorker | undefined;
  runtime.onContainerEvent(() => void worker?.request());
  const make = (pod: Pod) => {
    worker = new PodWorker(pod, {
      runtime, rootDir: dir, hostIP: '10.0.0.1', allocatable: () => ({ cpu: '2' }), logger: createLogger('test', {}, () => undefined),
      objects: { configMap: () => undefined, secret: () => undefined },
      writeStatus: async (_p, s) => void statuses.push(s),
      confirmDeletion: async () => undefined,
      ...extra,
    });
    return worker;
  };
  return { runtime, statuses, make, last: () => statuses.at(-1) };
}

test('eviction stops the pod for good: Failed/Evicted with its message and DisruptionTarget, emptyDirs freed, no restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default', uid: 'u5' },
    spec: { containers: [{ name: 'c', command: ['sleep', '30'] }], volumes: [{ name: 'scratch', emptyDir: {} }] },
  };
  const w = t.make(pod);
  await w.request();
  await until('running', () => t.last()?.phase === 'Running');
  assert.equal(w.active, true);
  const scratch = join(dir, 'pods', 'u5', 'volumes', 'kubernetes.io~empty-dir', 'scratch');
  assert.equal(existsSync(scratch), true);
  const message = 'The node was low on resource: ephemeral-storage. ';
  await w.evict({ reason: 'Evicted', message, gracePeriodSeconds: 1, condition: { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message } });
  const s = t.last()!;
  assert.equal(s.phase, 'Failed');
  assert.equal(s.reason, 'Evicted');
  assert.equal(s.message, message);
  assert.equal(s.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'TerminationByKubelet');
  assert.equal(s.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  assert.ok(s.containerStatuses?.[0].state?.terminated, 'the container is reported terminated');
  assert.ok(t.runtime.calls.some((c) => c.startsWith('stopPodSandbox')));
  assert.equal(existsSync(scratch), false, 'the emptyDir is freed at once');
  assert.equal(w.active, false);
  // later syncs (a container event, the informer's copy with the Failed phase) start nothing and write nothing
  const writes = t.statuses.length;
  const creates = t.runtime.calls.filter((c) => c.startsWith('createContainer')).length;
  w.update({ ...pod, status: s });
  await w.request();
  assert.equal(t.statuses.length, writes);
  assert.equal(t.runtime.calls.filter((c) => c.startsWith('createContainer')).length, creates);
  await w.remove();
  await rm(dir, { recursive: true, force: true });
});

test('a pod refused by admission fails with the refusal\'s reason and never starts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const runtime = new FakeRuntime();
  const statuses: PodStatus[] = [];
  const w = new PodWorker({ metadata: { name: 'p', namespace: 'default', uid: 'u6' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } }, {
    runtime, rootDir: dir, hostIP: '10.0.0.1', allocatable: () => ({}), logger: createLogger('test', {}, () => undefined),
    objects: { configMap: () => undefined, secret: () => undefined },
    writeStatus: async (_p, s) => void statuses.push(s),
    confirmDeletion: async () => undefined,
    admitPod: () => ({ reason: 'Evicted', message: 'The node had condition: [DiskPressure]. ' }),
  });
  await w.request();
  assert.deepEqual(statuses.at(-1), { phase: 'Failed', reason: 'Evicted', message: 'Pod was rejected: The node had condition: [DiskPressure]. ', qosClass: undefined });
  assert.equal(runtime.calls.some((c) => c.startsWith('runPodSandbox')), false);
  await rm(dir, { recursive: true, force: true });
});
