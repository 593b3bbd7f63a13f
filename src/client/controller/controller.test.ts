import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { TestObjects } from '../../testing/objects.js';
import { startTestApiServer, type TestApiServer } from '../../testing/test-api-server.js';
import { waitFor } from '../testing/wait-for.js';
import { Client } from '../rest/client.js';
import { SharedInformerFactory } from '../cache/shared-informer-factory.js';
import { ItemExponentialFailureRateLimiter } from '../workqueue/item-exponential-failure-rate-limiter.js';
import { Controller } from './controller.js';
import { TerminalError } from './reconciler.js';
import { ownedBy } from './owned-by.js';
import { CONFIG_MAPS, PODS } from '../../api/resource-refs.js';

let api: TestApiServer;
let client: Client;
let ac: AbortController;
beforeEach(async () => {
  api = await startTestApiServer({ namespaces: ['a'] });
  client = api.client;
  ac = new AbortController();
});
afterEach(async () => {
  ac.abort();
  await api.stop();
});

test('results map to queue actions: error retries, terminal drops, requeueAfter repeats, success forgets', async () => {
  const objects = new TestObjects(api.client);
  for (const n of ['ok', 'flaky', 'bad', 'again']) await objects.put(CONFIG_MAPS, { metadata: { namespace: 'a', name: n } });
  const calls: string[] = [];
  let flaky = 0;
  let again = 0;
  const errors: string[] = [];
  const factory = new SharedInformerFactory(client);
  const controller = new Controller({
    name: 'test',
    workers: 2,
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(1, 10),
    onError: (key) => errors.push(key),
    reconciler: {
      reconcile: async (key) => {
        calls.push(key);
        if (key === 'a/flaky' && flaky++ < 2) throw new Error('transient');
        if (key === 'a/bad') throw new TerminalError('never works');
        if (key === 'a/again' && again++ < 1) return { requeueAfter: 5 };
      },
    },
  }).watches(factory.forResource<ConfigMap>(CONFIG_MAPS), { enqueue: 'self' });
  factory.start(ac.signal);
  const run = controller.run(ac.signal);
  await waitFor(() => calls.filter((c) => c === 'a/flaky').length === 3 && calls.filter((c) => c === 'a/again').length === 2, 'retries');
  assert.equal(calls.filter((c) => c === 'a/bad').length, 1);
  assert.equal(calls.filter((c) => c === 'a/ok').length, 1);
  assert.deepEqual(errors.sort(), ['a/bad', 'a/flaky', 'a/flaky']);
  assert.equal(controller.queue.numRequeues('a/flaky'), 0, 'forgotten after success');
  assert.equal(controller.queue.numRequeues('a/bad'), 0);
  ac.abort();
  await run;
  await factory.shutdown();
});

test('ownedBy enqueues the controlling owner; stop waits for in-flight reconciles', async () => {
  const factory = new SharedInformerFactory(client);
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let finished = false;
  const controller = new Controller({
    name: 'owners',
    reconciler: {
      reconcile: async (key) => {
        seen.push(key);
        if (key === 'a/slow') {
          await gate;
          finished = true;
        }
      },
    },
  }).watches(factory.forResource<Pod>(PODS), { enqueue: ownedBy('ReplicaSet', 'apps') });
  factory.start(ac.signal);
  const run = controller.run(ac.signal);
  const ref = (kind: string, name: string, controllerRef = true) => ({ apiVersion: 'apps/v1', kind, name, uid: 'u', controller: controllerRef });
  const pods = client.resource<Pod>(PODS).namespace('a');
  const spec = { containers: [{ name: 'c', image: 'i' }] };
  await pods.create({ metadata: { name: 'p1', ownerReferences: [ref('ReplicaSet', 'rs1')] }, spec });
  await pods.create({ metadata: { name: 'p2', ownerReferences: [ref('ReplicaSet', 'rs2', false)] }, spec });
  await pods.create({ metadata: { name: 'p3', ownerReferences: [ref('StatefulSet', 'ss')] }, spec });
  await pods.create({ metadata: { name: 'p4', ownerReferences: [ref('ReplicaSet', 'slow')] }, spec });
  await waitFor(() => seen.includes('a/slow'), 'slow reconcile started');
  assert.ok(seen.includes('a/rs1'));
  assert.ok(!seen.includes('a/rs2') && !seen.includes('a/ss'));
  ac.abort();
  let stopped = false;
  const stopping = run.then(() => (stopped = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(stopped, false, 'run waits for the in-flight reconcile');
  release();
  await stopping;
  assert.equal(finished, true);
  await factory.shutdown();
});
