import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { createLogger } from '../../machinery/logger.js';
import { FakeRuntime } from '../runtime/fake/fake-runtime.js';
import { PodWorker } from './pod-worker.js';

async function until<T>(what: string, fn: () => T | undefined | false, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function setup(dir: string, opts: { confirmDeletion?: (p: Pod, worker: PodWorker) => Promise<void>; quietRuntime?: boolean } = {}) {
  const runtime = new FakeRuntime();
  const statuses: PodStatus[] = [];
  const confirmed: string[] = [];
  let worker: PodWorker | undefined;
  runtime.onContainerEvent(() => {
    if (!opts.quietRuntime) void worker?.request();
  });
  const make = (pod: Pod) => {
    worker = new PodWorker(pod, {
      runtime, rootDir: dir, hostIP: '10.0.0.1', allocatable: () => ({ cpu: '2' }), logger: createLogger('test', {}, () => undefined),
      objects: { configMap: () => undefined, secret: () => undefined },
      writeStatus: async (_p, s) => void statuses.push(s),
      confirmDeletion: async (p) => {
        await opts.confirmDeletion?.(p, worker!);
        confirmed.push(p.metadata!.name!);
      },
    });
    return worker;
  };
  return { runtime, statuses, confirmed, make, last: () => statuses.at(-1) };
}

test('init containers run in order before the app container; status follows', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { initContainers: [{ name: 'i1', command: ['true'] }, { name: 'i2', command: ['true'] }], containers: [{ name: 'app', command: ['sleep', '30'] }] } };
  const w = t.make(pod);
  await w.request();
  await until('app running', () => t.last()?.phase === 'Running');
  const created = t.runtime.calls.filter((c) => c.startsWith('createContainer')).map((c) => c.split(' ')[1]);
  assert.deepEqual(created, ['i1', 'i2', 'app']);
  assert.equal(t.last()?.conditions?.find((c) => c.type === 'Initialized')?.status, 'True');
  assert.equal(t.last()?.initContainerStatuses?.every((s) => s.state?.terminated?.reason === 'Completed'), true);
  await rm(dir, { recursive: true, force: true });
});

test('a failing container is restarted, then backs off with CrashLoopBackOff', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const w = t.make({ metadata: { name: 'p', namespace: 'default', uid: 'u2' }, spec: { containers: [{ name: 'c', command: ['false'] }] } });
  await w.request();
  const s = await until('crash loop', () => {
    const c = t.last()?.containerStatuses?.[0];
    return c?.state?.waiting?.reason === 'CrashLoopBackOff' && c.restartCount === 1 ? c : undefined;
  });
  assert.equal(s.lastState?.terminated?.exitCode, 1);
  assert.match(s.state!.waiting!.message!, /^back-off 10s restarting failed container=c pod=p_default\(u2\)$/);
  await w.remove();
  await rm(dir, { recursive: true, force: true });
});

test('deletion stops containers, removes the sandbox and confirms the delete', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u3' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } };
  const w = t.make(pod);
  await w.request();
  await until('running', () => t.last()?.phase === 'Running');
  w.update({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date().toISOString(), deletionGracePeriodSeconds: 5 } });
  await w.request();
  assert.deepEqual(t.confirmed, ['p']);
  assert.ok(t.runtime.calls.some((c) => c.startsWith('stopContainer')));
  assert.ok(t.runtime.calls.some((c) => c.startsWith('removePodSandbox')));
  assert.equal(w.done, true);
  await rm(dir, { recursive: true, force: true });
});

test('a container without a command waits with CreateContainerError and a clear message', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const w = t.make({ metadata: { name: 'p', namespace: 'default', uid: 'u4' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await w.request();
  const c = t.last()?.containerStatuses?.[0];
  assert.equal(c?.state?.waiting?.reason, 'CreateContainerError');
  assert.equal(t.last()?.phase, 'Pending');
  await w.remove();
  await rm(dir, { recursive: true, force: true });
});

test('a deletion whose confirmation fails in two syncs back to back is retried until confirmed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  let failures = 2;
  // the API server is down: the DELETE fails while a watch delivery asks for another sync at once (found by the chaos soak)
  const t = setup(dir, {
    // no container events: only the worker's own resync may retry
    quietRuntime: true,
    confirmDeletion: async (_p, worker) => {
      if (failures <= 0) return;
      // the first failure comes with a watch delivery asking for another sync at once
      if (failures-- === 2) void worker.request();
      throw new Error('DELETE /api/v1/namespaces/default/pods/p: socket hang up');
    },
  });
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u5' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } };
  const w = t.make(pod);
  await w.request();
  await until('running', () => t.last()?.phase === 'Running');
  w.update({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date().toISOString(), deletionGracePeriodSeconds: 5 } });
  await w.request();
  await until('the deletion confirmed after the failures', () => t.confirmed.includes('p'));
  assert.equal(failures, 0);
  await until('the worker done', () => w.done);
  await rm(dir, { recursive: true, force: true });
});

test('a restarted kubelet terminating a pod deleted while it was away stops the containers it left running', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pw-'));
  const t = setup(dir);
  const pod: Pod = { metadata: { name: 'db-0', namespace: 'default', uid: 'u6' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } };
  const before = t.make(pod);
  await before.request();
  await until('running', () => t.last()?.phase === 'Running');
  const running = async () => (await t.runtime.listContainers({})).filter((c) => c.state === 'Running');
  assert.equal((await running()).length, 1);
  // the kubelet is killed (its worker gone with it, the container left running); meanwhile the pod is deleted
  await before.stop();
  const after = t.make({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date().toISOString(), deletionGracePeriodSeconds: 5 } });
  await after.request();
  assert.deepEqual(t.confirmed, ['db-0']);
  // confirming the deletion lets a StatefulSet start db-0 elsewhere: this one must not run any more (found by the chaos soak)
  assert.deepEqual(await running(), []);
  assert.ok(t.runtime.calls.some((c) => c.startsWith('stopContainer')));
  await rm(dir, { recursive: true, force: true });
});
