import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { CMS, freshSnapshot, MirrorHandler, snapshot } from './support/informer-mirror.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { SharedIndexInformer } from '../../src/client/cache/shared-informer.js';
import { listWatcherFor } from '../../src/client/cache/list-watcher.js';

const OPERATIONS = 5000;
const WORKERS = 16;
const KEYS_PER_WORKER = 25;

/** A small deterministic PRNG (mulberry32) so a failing workload can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('our informer and @kubernetes/client-node\'s agree', () => {
  let server: ServerProcess;
  let client: Client;

  before(async () => {
    server = await startServer({ command: 'apiserver' });
    // The workload writer is not rate limited: 5,000 writes at client-go's 5 qps would take 17 minutes.
    client = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e', qps: -1 });
  });
  after(async () => {
    client?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  it(`after a mixed create/update/delete workload of ${OPERATIONS} operations`, async () => {
    const ns = 'agree';
    const ac = new AbortController();
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    const api = client.resource<ConfigMap>(CMS).namespace(ns);

    const informerClient = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e-informer' });
    const ours = new SharedIndexInformer<ConfigMap>({ listerWatcher: listWatcherFor(informerClient.resource<ConfigMap>(CMS).namespace(ns)) });
    const mirror = new MirrorHandler();
    ours.addEventHandler(mirror);
    const run = ours.run(ac.signal);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const theirs = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    const theirErrors: unknown[] = [];
    theirs.on('error', (err) => theirErrors.push(err));
    await theirs.start();
    assert.equal(await ours.whenSynced(ac.signal), true);

    // Each worker owns its keys, so its operations on them are ordered and never conflict;
    // workers run concurrently so the watch streams carry interleaved changes.
    const counts = { create: 0, update: 0, patch: 0, delete: 0 };
    const started = Date.now();
    let issued = 0;
    const worker = async (w: number): Promise<void> => {
      const random = prng(1000 + w);
      const live = new Map<string, ConfigMap>();
      while (issued < OPERATIONS) {
        issued++;
        const name = `w${w}-k${Math.floor(random() * KEYS_PER_WORKER)}`;
        const current = live.get(name);
        const roll = random();
        if (!current) {
          live.set(name, await api.create({ metadata: { name, labels: { worker: String(w) } }, data: { v: '0' } }));
          counts.create++;
        } else if (roll < 0.4) {
          live.set(name, await api.update({ ...current, data: { v: String(roll) } }));
          counts.update++;
        } else if (roll < 0.7) {
          live.set(name, await api.patch(name, { metadata: { labels: { roll: String(Math.floor(roll * 100)) } } }, 'merge'));
          counts.patch++;
        } else {
          await api.delete(name);
          live.delete(name);
          counts.delete++;
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    const writeSeconds = (Date.now() - started) / 1000;
    assert.equal(counts.create + counts.update + counts.patch + counts.delete, OPERATIONS);
    assert.ok(counts.delete > 500 && counts.create > 500 && counts.update > 500, JSON.stringify(counts));

    const fresh = () => freshSnapshot(api);
    await waitFor('both informers (and our handlers) to match a fresh list', async () => {
      const want = await fresh();
      return snapshot(ours.indexer.list()) === want && mirror.snapshot() === want && snapshot(theirs.list(ns)) === want;
    }, 30_000, 200);
    // Same objects, same content: compare full objects, not only resourceVersions.
    for (const obj of theirs.list(ns)) {
      const mine = ours.lister.namespace(ns).get(obj.metadata?.name ?? '');
      assert.deepEqual(mine?.data, obj.data, obj.metadata?.name);
      assert.deepEqual(mine?.metadata?.labels, obj.metadata?.labels, obj.metadata?.name);
    }
    const stillThere = (await api.list()).items.length;
    assert.ok(stillThere > 0, 'workload left objects to compare');
    process.stderr.write(`# ${OPERATIONS} operations ${JSON.stringify(counts)} in ${writeSeconds.toFixed(1)} s; ${stillThere} objects remain\n`);

    await theirs.stop();
    ac.abort();
    await run;
    informerClient.close();
  });
});
