import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WatchClosedError } from '../errors.js';
import { take } from '../conformance/fixture.js';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SqliteStorage watch', () => {
  it('closes a watcher that falls behind instead of buffering without bound', async () => {
    const storage = SqliteStorage.open({ path: temp.path(), watchBufferSize: 10 });
    try {
      const controller = new AbortController();
      const slow = storage.watch('/w/', { startRevision: 0, signal: controller.signal })[Symbol.asyncIterator]();
      const keeping = storage.watch('/w/', { startRevision: 0, signal: controller.signal })[Symbol.asyncIterator]();
      const firstSlow = slow.next();
      const consumed = take(keeping, 25);
      // Writes in separate turns, so the fast watcher drains between them.
      for (let i = 0; i < 25; i++) await storage.create(`/w/${i}`, bytes('v'));
      assert.equal((await firstSlow).value?.kv.key, '/w/0');
      assert.equal((await consumed).length, 25, 'a watcher that keeps up is unaffected');
      const drained: string[] = [];
      await assert.rejects(
        (async () => {
          for (;;) {
            const next = await slow.next();
            if (next.done) return;
            drained.push(next.value.kv.key);
          }
        })(),
        WatchClosedError,
      );
      assert.ok(drained.length <= 10, `${drained.length} buffered events delivered before the error`);
      controller.abort();
    } finally {
      await storage.close();
    }
  });

  it('replays more history than one page, then continues live without gap or duplicate', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      await Promise.all(Array.from({ length: 1234 }, (_, i) => storage.create(`/h/${i}`, bytes(String(i)))));
      await storage.create('/elsewhere', bytes('x'));
      const controller = new AbortController();
      const events = storage.watch('/h/', { startRevision: 1, signal: controller.signal })[Symbol.asyncIterator]();
      const replayed = await take(events, 1000);
      // Writes while the watcher is half way through its replay.
      const live = await Promise.all(Array.from({ length: 100 }, (_, i) => storage.update(`/h/${i}`, bytes('new'), i + 1)));
      const rest = await take(events, 334);
      controller.abort();
      const revisions = [...replayed, ...rest].map((e) => e.kv.modRevision);
      const expected = [...Array.from({ length: 1234 }, (_, i) => i + 1), ...live.map((r) => r.revision)];
      assert.deepEqual(revisions, expected);
      assert.equal(rest.at(-1)!.prevKv?.modRevision, 100);
    } finally {
      await storage.close();
    }
  });

  it('waits for a future start revision', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      const controller = new AbortController();
      const events = storage.watch('/f/', { startRevision: 3, signal: controller.signal })[Symbol.asyncIterator]();
      const first = events.next();
      await Promise.all([storage.create('/f/1', bytes('1')), storage.create('/f/2', bytes('2')), storage.create('/f/3', bytes('3'))]);
      assert.equal((await first).value?.kv.key, '/f/3');
      controller.abort();
    } finally {
      await storage.close();
    }
  });

  it('ends open watchers with WatchClosedError on close', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    const events = storage.watch('/', { startRevision: 0, signal: new AbortController().signal })[Symbol.asyncIterator]();
    const pending = events.next();
    await storage.close();
    await assert.rejects(pending, WatchClosedError);
    assert.equal((await events.next()).done, true);
  });

  it('stops on break and delivers nothing afterwards', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      const controller = new AbortController();
      const watch = storage.watch('/b/', { startRevision: 0, signal: controller.signal });
      const pending = (async () => {
        for await (const event of watch) return event.kv.key;
        return undefined;
      })();
      await storage.create('/b/1', bytes('1'));
      assert.equal(await pending, '/b/1');
      await storage.create('/b/2', bytes('2'));
      assert.equal((await watch[Symbol.asyncIterator]().next()).done, true);
    } finally {
      await storage.close();
    }
  });
});
