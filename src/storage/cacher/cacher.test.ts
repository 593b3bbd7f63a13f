import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { after, describe, it } from 'node:test';
import { describeStorageConformance } from '../conformance.js';
import { bytes, succeeded, take, text, within } from '../conformance/fixture.js';
import { CompactedError, WatchClosedError } from '../errors.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import { TempDbs } from '../sqlite/testing/temp-db.js';
import type { WatchEvent } from '../storage.js';
import { Cacher } from './cacher.js';

const temp = new TempDbs();
after(() => temp.cleanup());

describeStorageConformance('cacher over sqlite', async () => {
  const storage = new Cacher(SqliteStorage.open({ path: temp.path() }));
  return { storage, close: () => storage.close() };
});

async function withCacher(opts: ConstructorParameters<typeof Cacher>[1], body: (cacher: Cacher, backing: SqliteStorage) => Promise<void>): Promise<void> {
  const backing = SqliteStorage.open({ path: temp.path() });
  const cacher = new Cacher(backing, opts);
  try {
    await body(cacher, backing);
  } finally {
    await cacher.close();
  }
}

/** Waits until the resource's cache is listed (lists warm it). */
async function warm(cacher: Cacher, prefix: string): Promise<number> {
  return (await cacher.list(prefix)).revision;
}

describe('Cacher', () => {
  it('serves many watchers from one storage watch per resource', async () => {
    await withCacher({}, async (cacher) => {
      const rev = await warm(cacher, '/registry/pods/');
      await warm(cacher, '/registry/nodes/');
      const controller = new AbortController();
      setMaxListeners(100, controller.signal);
      try {
        const watchers = Array.from({ length: 50 }, (_, i) =>
          cacher.watch(i % 2 ? '/registry/pods/a/' : '/registry/pods/', { startRevision: rev + 1, signal: controller.signal })[Symbol.asyncIterator](),
        );
        const pulls = watchers.map((w, i) => take(w, i % 2 ? 2 : 3));
        succeeded(await cacher.create('/registry/pods/a/p1', bytes('1')));
        succeeded(await cacher.create('/registry/pods/b/p2', bytes('2')));
        succeeded(await cacher.create('/registry/pods/a/p3', bytes('3')));
        const got = await Promise.all(pulls);
        for (const [i, events] of got.entries()) {
          assert.deepEqual(events.map((e) => e.kv.key), i % 2 ? ['/registry/pods/a/p1', '/registry/pods/a/p3'] : ['/registry/pods/a/p1', '/registry/pods/b/p2', '/registry/pods/a/p3']);
        }
        assert.equal(cacher.storageWatches(), 2, 'one storage watch per resource');
        assert.equal(cacher.cacheWatchers(), 50);
      } finally {
        controller.abort();
      }
    });
  });

  it('closes a slow watcher without holding back the others or the writer', async () => {
    await withCacher({ watcherBufferSize: 10 }, async (cacher) => {
      const rev = await warm(cacher, '/registry/pods/');
      const controller = new AbortController();
      try {
        const slow = cacher.watch('/registry/pods/', { startRevision: rev + 1, signal: controller.signal })[Symbol.asyncIterator]();
        const fast = cacher.watch('/registry/pods/', { startRevision: rev + 1, signal: controller.signal })[Symbol.asyncIterator]();
        const fastPull = take(fast, 100);
        // Pulled once (which starts it), then never again.
        const slowFirst = slow.next().catch(() => undefined);
        for (let i = 0; i < 100; i++) succeeded(await cacher.create(`/registry/pods/x/p${i}`, bytes(String(i))));
        const events = await fastPull;
        assert.deepEqual(events.map((e) => text(e.kv.value)), Array.from({ length: 100 }, (_, i) => String(i)));
        await slowFirst;
        await assert.rejects(within((async () => {
          for (;;) if ((await slow.next()).done) return;
        })()), WatchClosedError);
      } finally {
        controller.abort();
      }
    });
  });

  it('closes a watcher whose pending events pass the byte limit, though under the event limit', async () => {
    await withCacher({ watcherBufferSize: 1000, watcherBufferBytes: 64 * 1024 }, async (cacher) => {
      const rev = await warm(cacher, '/registry/pods/');
      const controller = new AbortController();
      try {
        const slow = cacher.watch('/registry/pods/', { startRevision: rev + 1, signal: controller.signal })[Symbol.asyncIterator]();
        const slowFirst = slow.next().catch(() => undefined);
        // 20 events of 10 KiB: far under 1,000 events, over 64 KiB
        for (let i = 0; i < 20; i++) succeeded(await cacher.create(`/registry/pods/x/p${i}`, bytes('x'.repeat(10 * 1024))));
        await slowFirst;
        await assert.rejects(within((async () => {
          for (;;) if ((await slow.next()).done) return;
        })()), WatchClosedError);
      } finally {
        controller.abort();
      }
    });
  });

  it('answers CompactedError for a revision that fell out of the window', async () => {
    await withCacher({ windowSize: 5 }, async (cacher) => {
      const rev = await warm(cacher, '/registry/pods/');
      const revisions: number[] = [];
      for (let i = 0; i < 10; i++) revisions.push(succeeded(await cacher.create(`/registry/pods/x/p${i}`, bytes('v'))).revision);
      await warm(cacher, '/registry/pods/');
      const controller = new AbortController();
      try {
        const old = cacher.watch('/registry/pods/', { startRevision: rev + 1, signal: controller.signal });
        await assert.rejects(within((async () => {
          for await (const _ of old) assert.fail('no event from a revision outside the window');
        })()), CompactedError);
        const recent = cacher.watch('/registry/pods/', { startRevision: revisions[7]!, signal: controller.signal })[Symbol.asyncIterator]();
        const got = await take(recent, 3);
        assert.deepEqual(got.map((e: WatchEvent) => e.kv.modRevision), revisions.slice(7));
      } finally {
        controller.abort();
      }
    });
  });

  it('never serves a stale consistent list, even for writes that bypass it', async () => {
    await withCacher({}, async (cacher, backing) => {
      await warm(cacher, '/registry/pods/');
      for (let i = 0; i < 20; i++) {
        succeeded(await backing.create(`/registry/pods/ns/p${i}`, bytes('v')));
        const listed = await cacher.list('/registry/pods/ns/');
        assert.equal(listed.kvs.length, i + 1);
        assert.ok(listed.revision >= (await backing.currentRevision()));
      }
    });
  });

  it('pages lists from the cache by namespace, limit and startAfter', async () => {
    await withCacher({}, async (cacher) => {
      for (const key of ['a/1', 'a/2', 'a/3', 'b/1', 'ab/1']) succeeded(await cacher.create(`/registry/pods/${key}`, bytes(key)));
      await warm(cacher, '/registry/pods/');
      const first = await cacher.list('/registry/pods/a/', { limit: 2 });
      assert.deepEqual(first.kvs.map((kv) => text(kv.value)), ['a/1', 'a/2']);
      assert.equal(first.more, true);
      assert.equal(first.remaining, 1);
      const rest = await cacher.list('/registry/pods/a/', { startAfter: '/registry/pods/a/2' });
      assert.deepEqual(rest.kvs.map((kv) => text(kv.value)), ['a/3']);
      assert.equal(rest.more, false);
      assert.equal(cacher.storageWatches(), 1);
    });
  });

  it('serves the pages after the first at their revision from the cache, even once the storage compacted it', async () => {
    await withCacher({}, async (cacher) => {
      const created = new Map<string, number>();
      for (const key of ['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'a/6']) created.set(key, succeeded(await cacher.create(`/registry/pods/${key}`, bytes(key))).revision);
      await warm(cacher, '/registry/pods/');
      const first = await cacher.list('/registry/pods/a/', { limit: 2 });
      assert.deepEqual(first.kvs.map((kv) => text(kv.value)), ['a/1', 'a/2']);
      // changes after the first page: on both sides of the page boundary
      const current = (key: string) => cacher.get(`/registry/pods/${key}`).then((r) => r.kv!.modRevision);
      succeeded(await cacher.update('/registry/pods/a/3', bytes('a/3 changed'), await current('a/3')));
      succeeded(await cacher.delete('/registry/pods/a/4'));
      succeeded(await cacher.delete('/registry/pods/a/1'));
      succeeded(await cacher.create('/registry/pods/a/35', bytes('a/35')));
      await warm(cacher, '/registry/pods/');
      // the storage's history at the first page's revision is gone: only the cache can answer
      await cacher.compact(await cacher.currentRevision());
      const second = await cacher.list('/registry/pods/a/', { revision: first.revision, startAfter: first.kvs.at(-1)!.key, limit: 2 });
      assert.deepEqual(second.kvs.map((kv) => [text(kv.value), kv.modRevision]), [['a/3', created.get('a/3')], ['a/4', created.get('a/4')]]);
      assert.equal(second.revision, first.revision);
      assert.equal(second.more, true);
      assert.equal(second.remaining, 2);
      const third = await cacher.list('/registry/pods/a/', { revision: first.revision, startAfter: second.kvs.at(-1)!.key, limit: 2 });
      assert.deepEqual(third.kvs.map((kv) => text(kv.value)), ['a/5', 'a/6']);
      assert.equal(third.more, false);
    });
  });

  it('answers getCached from a running cache only, and follows its writes', async () => {
    await withCacher({}, async (cacher) => {
      succeeded(await cacher.create('/registry/pods/a/p', bytes('one')));
      assert.equal(cacher.getCached('/registry/pods/a/p'), undefined, 'no cache of pods runs yet');
      await warm(cacher, '/registry/pods/');
      assert.equal(text(cacher.getCached('/registry/pods/a/p')!.value), 'one');
      const updated = succeeded(await cacher.update('/registry/pods/a/p', bytes('two'), cacher.getCached('/registry/pods/a/p')!.modRevision));
      await warm(cacher, '/registry/pods/');
      assert.equal(cacher.getCached('/registry/pods/a/p')!.modRevision, updated.revision);
      assert.equal(text(cacher.getCached('/registry/pods/a/p')!.value), 'two');
      succeeded(await cacher.create('/registry/nodes/n', bytes('node')));
      assert.equal(cacher.getCached('/registry/nodes/n'), undefined, 'nodes are not cached');
      assert.equal(cacher.getCached('/registry/pods/a/missing'), undefined);
    });
  });

  it('starts a resource\'s cache on a getCached that asks for it, and answers from it once it has listed', async () => {
    await withCacher({}, async (cacher) => {
      succeeded(await cacher.create('/registry/namespaces/ns', bytes('ns')));
      assert.equal(cacher.getCached('/registry/namespaces/ns'), undefined, 'no cache of namespaces runs yet');
      assert.equal(cacher.getCached('/registry/namespaces/ns', { start: true }), undefined, 'the cache has not listed yet');
      const deadline = Date.now() + 10_000;
      while (!cacher.getCached('/registry/namespaces/ns') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(text(cacher.getCached('/registry/namespaces/ns')!.value), 'ns', 'the started cache holds the namespace');
      assert.equal(cacher.storageWatches(), 1);
    });
  });

  it("hands watchers the previous value the cache held, so its bytes are the ones already seen", async () => {
    await withCacher({}, async (cacher) => {
      const rev = await warm(cacher, '/registry/pods/');
      const controller = new AbortController();
      try {
        const watch = cacher.watch('/registry/pods/', { startRevision: rev + 1, signal: controller.signal })[Symbol.asyncIterator]();
        const pull = take(watch, 3);
        const created = succeeded(await cacher.create('/registry/pods/a/p', bytes('one')));
        const updated = succeeded(await cacher.update('/registry/pods/a/p', bytes('two'), created.revision));
        succeeded(await cacher.delete('/registry/pods/a/p', updated.revision));
        const [put, modify, del] = await pull;
        assert.equal(modify!.prevKv, put!.kv, 'the update event carries the created value as the cache held it');
        assert.equal(modify!.prevKv!.modRevision, created.revision);
        assert.equal(del!.type, 'DELETE');
        assert.equal(del!.prevKv, modify!.kv);
        assert.equal(del!.kv.value, modify!.kv.value, "a deletion's value is the last one");
        assert.equal(del!.kv.modRevision, updated.revision + 1);
        assert.equal(text(del!.kv.value), 'two');
      } finally {
        controller.abort();
      }
    });
  });

  it('keeps its keys in order across creates and deletes between lists', async () => {
    await withCacher({}, async (cacher) => {
      const names = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'k'];
      for (const n of names.slice(0, 3)) succeeded(await cacher.create(`/registry/pods/ns/${n}`, bytes(n)));
      const keysNow = async () => (await cacher.list('/registry/pods/')).kvs.map((kv) => text(kv.value));
      assert.deepEqual(await keysNow(), ['c', 'm', 'x']);
      for (const n of names.slice(3)) {
        succeeded(await cacher.create(`/registry/pods/ns/${n}`, bytes(n)));
        await keysNow();
      }
      succeeded(await cacher.delete('/registry/pods/ns/m'));
      succeeded(await cacher.delete('/registry/pods/ns/a'));
      succeeded(await cacher.create('/registry/pods/ns/a', bytes('a again')));
      assert.deepEqual(await keysNow(), ['a again', 'b', 'c', 'k', 'q', 'x', 'z']);
      const page = await cacher.list('/registry/pods/', { limit: 3, startAfter: '/registry/pods/ns/b' });
      assert.deepEqual(page.kvs.map((kv) => text(kv.value)), ['c', 'k', 'q']);
    });
  });
});
