import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { createLogger } from '../../machinery/logger.js';
import { FakeRuntime } from '../runtime/fake/fake-runtime.js';
import { PodWorker } from './pod-worker.js';
import { PodWorkers } from './pod-workers.js';

async function until<T>(what: string, fn: () => T | undefined | false, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function deps(runtime: FakeRuntime, dir: string, statuses: PodStatus[]) {
  return {
    runtime, rootDir: dir, hostIP: '10.0.0.1', allocatable: () => ({ cpu: '2' }), logger: createLogger('test', {}, () => undefined),
    objects: { configMap: () => undefined, secret: () => undefined },
    writeStatus: async (_p: Pod, s: PodStatus) => void statuses.push(s),
    confirmDeletion: async () => undefined,
  };
}

test('a new worker (a restarted kubelet) adopts the running sandbox and containers: no restart, same status', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-pw-'));
  const runtime = new FakeRuntime();
  const before: PodStatus[] = [];
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default', uid: 'a1' },
    spec: { containers: [{ name: 'c', command: ['sleep', '30'], readinessProbe: { exec: { command: ['true'] }, periodSeconds: 3600 } }] },
  };
  const first = new PodWorker(pod, deps(runtime, dir, before));
  runtime.onContainerEvent(() => void first.request());
  await first.request();
  const running = await until('ready', () => before.findLast((s) => s.conditions?.find((c) => c.type === 'Ready')?.status === 'True'));
  await first.stop();

  const calls = runtime.calls.length;
  const after: PodStatus[] = [];
  const second = new PodWorker({ ...pod, status: running }, deps(runtime, dir, after));
  await second.request();
  assert.deepEqual(runtime.calls.slice(calls).filter((c) => /^(runPodSandbox|createContainer|startContainer)/.test(c)), []);
  // the status it reports is the one the pod already had (so no write is needed at all)
  const now = after.at(-1) ?? running;
  assert.deepEqual(now.containerStatuses, running.containerStatuses);
  assert.equal(now.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  await second.remove();
  await rm(dir, { recursive: true, force: true });
});

test('housekeeping removes sandboxes of pods that no longer exist', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-pw-'));
  const runtime = new FakeRuntime();
  const known = await runtime.runPodSandbox({ uid: 'known', name: 'k', namespace: 'default', hostname: 'k', logDirectory: dir });
  await runtime.runPodSandbox({ uid: 'gone', name: 'g', namespace: 'default', hostname: 'g', logDirectory: dir });
  const workers = new PodWorkers(deps(runtime, dir, []));
  workers.onAdd({ metadata: { name: 'k', namespace: 'default', uid: 'known' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } });
  assert.deepEqual(await workers.removeOrphans(), ['gone']);
  assert.deepEqual((await runtime.listPodSandboxes()).map((s) => s.id), [known.id]);
  await workers.stop();
  await rm(dir, { recursive: true, force: true });
});

test('housekeeping removes every orphan it can, then frees leaked pod IPs; a sandbox that will not go is retried', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-pw-'));
  const runtime = new FakeRuntime();
  const stuck = await runtime.runPodSandbox({ uid: 'stuck', name: 's', namespace: 'default', hostname: 's', logDirectory: dir });
  await runtime.runPodSandbox({ uid: 'gone', name: 'g', namespace: 'default', hostname: 'g', logDirectory: dir });
  const remove = runtime.removePodSandbox.bind(runtime);
  let refuse = true;
  runtime.removePodSandbox = (id: string) => (id === stuck.id && refuse ? Promise.reject(new Error('CNI teardown failed')) : remove(id));
  const workers = new PodWorkers(deps(runtime, dir, []));
  assert.deepEqual(await workers.removeOrphans(), ['gone']);
  assert.deepEqual((await runtime.listPodSandboxes()).map((s) => s.id), [stuck.id]);
  // the periodic pass frees IPs after the sandboxes, and tries the stuck one again
  refuse = false;
  const stop = new AbortController();
  let released = 0;
  const loop = workers.housekeeping(stop.signal, () => true, { periodMs: 1, releasePodIPs: async () => void released++ });
  await until('a housekeeping pass that released pod IPs', () => released > 0);
  stop.abort();
  await loop;
  assert.deepEqual(await runtime.listPodSandboxes(), []);
  await workers.stop();
  await rm(dir, { recursive: true, force: true });
});

test('an update that only carries status (the kubelet\'s own write) does not sync the pod; a label change or a readiness gate does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-adopt-pw-'));
  const runtime = new FakeRuntime();
  const statuses: PodStatus[] = [];
  const workers = new PodWorkers(deps(runtime, dir, statuses));
  // every sync reads its running container's status first
  let syncs = 0;
  const read = runtime.containerStatus.bind(runtime);
  runtime.containerStatus = (id: string) => {
    syncs++;
    return read(id);
  };
  const pod: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '1' }, spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] } };
  workers.onAdd(pod);
  await until('the pod is running', () => statuses.at(-1)?.phase === 'Running');
  await new Promise((r) => setTimeout(r, 50));
  syncs = 0;
  const ownWrite: Pod = { ...pod, metadata: { ...pod.metadata, resourceVersion: '2' }, status: statuses.at(-1) };
  workers.onUpdate(pod, ownWrite);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(syncs, 0);
  assert.equal(workers.pods()[0]?.metadata?.resourceVersion, '2');
  const labelled: Pod = { ...ownWrite, metadata: { ...ownWrite.metadata, resourceVersion: '3', labels: { a: 'b' } } };
  workers.onUpdate(ownWrite, labelled);
  await until('a sync for the label change', () => syncs === 1);
  const gated: Pod = { ...labelled, metadata: { ...labelled.metadata, resourceVersion: '4' }, spec: { ...labelled.spec!, readinessGates: [{ conditionType: 'x/ready' }] } };
  const gateMet: Pod = { ...gated, metadata: { ...gated.metadata, resourceVersion: '5' }, status: { ...gated.status, conditions: [{ type: 'x/ready', status: 'True' }] } };
  workers.onUpdate(gated, gateMet);
  await until('a sync for the readiness gate', () => syncs === 2);
  await workers.stop();
  await rm(dir, { recursive: true, force: true });
});
