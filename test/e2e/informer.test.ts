import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { removeDir, startServer, waitFor, type ServerProcess } from './harness.js';
import { CMS, freshSnapshot, MirrorHandler, snapshot } from './support/informer-mirror.js';
import { Client } from '../../src/client/rest/client.js';
import { loadKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { SharedIndexInformer } from '../../src/client/cache/shared-informer.js';
import { listWatcherFor } from '../../src/client/cache/list-watcher.js';
import { PausableListWatcher } from '../../src/client/testing/pausable-list-watcher.js';
import { isGone } from '../../src/client/rest/error-predicates.js';
import { apiErrorFromStatus } from '../../src/client/rest/api-error-from-status.js';

/**
 * The informer against `skiff server` (API server plus every component)
 * through what breaks list-watch: server restarts, history compaction
 * (410 → relist) and deletions it could not watch. Every case ends with the
 * indexer and a handler-built mirror both equal to a fresh list, and a
 * delete notification for each removed object.
 */
describe('informer through restarts, compaction and missed deletions', () => {
  let server: ServerProcess;
  let client: Client;
  const ac = new AbortController();
  // Compacting every second makes any watch that is away for a few seconds come back to a 410.
  const serverArgs = ['--compaction-interval', '1'];

  before(async () => {
    server = await startServer({ command: 'server', args: serverArgs });
    client = new Client(loadKubeconfig(server.kubeconfig), { component: 'e2e', qps: -1 });
  });
  after(async () => {
    ac.abort();
    client?.close();
    await server?.stop();
    if (server) await removeDir(server.dataDir);
  });

  const cms = (ns: string) => client.resource<ConfigMap>(CMS).namespace(ns);

  async function setup(ns: string, count: number) {
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    for (let i = 0; i < count; i++) await cms(ns).create({ metadata: { name: `o${i}` }, data: { v: '0' } });
    const lw = new PausableListWatcher(listWatcherFor(cms(ns)));
    const informer = new SharedIndexInformer<ConfigMap>({ listerWatcher: lw, reflector: { pageSize: 3, backoff: { initial: 100, max: 500 } } });
    const mirror = new MirrorHandler();
    informer.addEventHandler(mirror);
    const run = informer.run(ac.signal);
    assert.equal(await informer.whenSynced(ac.signal), true);
    await waitFor('the informer to watch', () => lw.isWatching());
    return { lw, informer, mirror, run };
  }

  /** The informer's cache and the handler mirror both equal a fresh list. */
  async function converged(ns: string, informer: SharedIndexInformer<ConfigMap>, mirror: MirrorHandler): Promise<void> {
    await waitFor(`the ${ns} cache to equal a fresh list`, async () => {
      const fresh = await freshSnapshot(cms(ns));
      return snapshot(informer.indexer.list()) === fresh && mirror.snapshot() === fresh;
    });
  }

  /** Resolves once a watch from `rv` is answered with 410: the server can no longer replay what came after it. */
  async function compactedPast(ns: string, rv: string): Promise<void> {
    await waitFor(`the server to answer a watch from ${rv} with 410`, async () => {
      for await (const ev of cms(ns).watch({ resourceVersion: rv, timeoutSeconds: 1 })) {
        return ev.type === 'ERROR' && isGone(apiErrorFromStatus(ev.object.code ?? 500, ev.object));
      }
      return false;
    }, 20_000, 250);
  }

  /** Resolves once the server's log reports a storage compaction beyond `rv`. */
  async function storageCompactedPast(rv: string): Promise<void> {
    await waitFor(`storage to be compacted past ${rv}`, () =>
      [...server.logs().matchAll(/"msg":"compacted storage","revision":(\d+)/g)].some((m) => Number(m[1]) > Number(rv)),
    20_000, 100);
  }

  it('resumes from its resourceVersion after a server restart and converges', async () => {
    const ns = 'restart';
    const { informer, mirror } = await setup(ns, 6);
    const port = server.port;
    await server.stop();
    server = await startServer({ command: 'server', dataDir: server.dataDir, args: [...serverArgs, '--port', String(port)] });
    // Writes right after the restart, possibly before the informer reconnects.
    await cms(ns).delete('o0');
    await cms(ns).patch('o1', { data: { v: '1' } }, 'merge');
    await cms(ns).create({ metadata: { name: 'after-restart' } });
    await converged(ns, informer, mirror);
    assert.deepEqual(mirror.deletedKeys(), [`${ns}/o0`]);
    assert.equal(informer.lister.namespace(ns).get('o1')?.data?.v, '1');
  });

  it('storage compacted while away but the watch cache still holds the events: the resumed watch replays missed deletions', async () => {
    const ns = 'replay';
    const { lw, informer, mirror } = await setup(ns, 30);
    const lastKnown = new Map(informer.indexer.list().map((o) => [`${ns}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '']));
    lw.pause();
    const pausedAt = informer.lastSyncResourceVersion();
    const removed: string[] = [];
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) {
        await cms(ns).delete(`o${i}`);
        removed.push(`${ns}/o${i}`);
      } else if (i % 3 === 1) {
        await cms(ns).patch(`o${i}`, { data: { v: 'while-away' } }, 'merge');
      }
    }
    for (let i = 0; i < 5; i++) await cms(ns).create({ metadata: { name: `new${i}` } });
    await storageCompactedPast(pausedAt);
    lw.resume();
    await converged(ns, informer, mirror);
    // The API server's watch cache keeps a window of events beyond storage compaction (as upstream's does),
    // so the informer resumes without a relist and sees real DELETED events with each object's final state.
    assert.equal(lw.lists, 1, 'no relist');
    assert.deepEqual(mirror.deletedKeys(), removed.sort());
    for (const d of mirror.deletes) {
      assert.equal(d.tombstone, false, d.key);
      assert.ok(Number(d.rv) >= Number(lastKnown.get(d.key)), `${d.key}: final state ${d.rv}, last known ${lastKnown.get(d.key)}`);
    }
    assert.equal(informer.lister.namespace(ns).get('o1')?.data?.v, 'while-away');
  });

  it('relists after a restart and compaction force a 410; deletions it missed arrive as tombstones with the last known state', async () => {
    const ns = 'compaction';
    const { lw, informer, mirror } = await setup(ns, 30);
    const lastKnown = new Map(informer.indexer.list().map((o) => [`${ns}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '']));
    lw.pause();
    const pausedAt = informer.lastSyncResourceVersion();
    // A restart empties the watch cache, so watches from before it are served from storage, where compaction bites.
    const port = server.port;
    await server.stop();
    server = await startServer({ command: 'server', dataDir: server.dataDir, args: [...serverArgs, '--port', String(port)] });
    const removed: string[] = [];
    for (let i = 0; i < 30; i++) {
      if (i % 3 === 0) {
        await cms(ns).delete(`o${i}`);
        removed.push(`${ns}/o${i}`);
      } else if (i % 3 === 1) {
        await cms(ns).patch(`o${i}`, { data: { v: 'while-away' } }, 'merge');
      }
    }
    for (let i = 0; i < 5; i++) await cms(ns).create({ metadata: { name: `new${i}` } });
    await compactedPast(ns, pausedAt);
    lw.resume();

    await waitFor('a relist', () => lw.lists === 2);
    await converged(ns, informer, mirror);
    assert.equal(lw.lists, 2, 'exactly one relist');
    assert.deepEqual(mirror.deletedKeys(), removed.sort());
    for (const d of mirror.deletes) {
      assert.equal(d.tombstone, true, `${d.key}: the final state was never watched`);
      assert.equal(d.rv, lastKnown.get(d.key), `${d.key}: the tombstone carries the last state the cache knew`);
    }
    assert.equal(informer.lister.namespace(ns).get('o1')?.data?.v, 'while-away');
    assert.ok(informer.lister.namespace(ns).get('new4'));
  });
});
