import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { describeStorageConformance } from '../conformance.js';
import { UnavailableError } from '../errors.js';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const bytes = (text: string) => new TextEncoder().encode(text);

describeStorageConformance('sqlite', async () => {
  const storage = SqliteStorage.open({ path: temp.path() });
  return { storage, close: () => storage.close() };
});

describe('SqliteStorage', () => {
  it('group-commits writes issued in the same turn', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      const before = storage.stats();
      const results = await Promise.all(Array.from({ length: 500 }, (_, i) => storage.create(`/g/${i}`, bytes('v'))));
      const after = storage.stats();
      assert.ok(results.every((r) => r.succeeded));
      assert.equal(after.writes - before.writes, 500);
      assert.ok(after.transactions - before.transactions <= 2, `${after.transactions - before.transactions} transactions for 500 writes`);
      assert.deepEqual(results.map((r) => r.revision), Array.from({ length: 500 }, (_, i) => i + 1), 'each write has its own revision');
    } finally {
      await storage.close();
    }
  });

  it('shows a committed write to reads and watches only once it is synced to disk', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    const stop = new AbortController();
    try {
      const events = storage.watch('/d/', { startRevision: 0, signal: stop.signal })[Symbol.asyncIterator]();
      const next = events.next();
      const written = storage.create('/d/a', bytes('v'));
      // the batch commits on this turn's setImmediate, queued before ours; its sync finishes later
      await new Promise((r) => setImmediate(r));
      assert.equal(storage.stats().writes, 1, 'committed');
      assert.equal((await storage.get('/d/a')).kv, undefined, 'not visible before its sync');
      assert.equal(await storage.currentRevision(), 0);
      assert.equal((await storage.list('/d/')).kvs.length, 0);
      const result = await written;
      assert.equal(result.succeeded, true);
      assert.equal((await storage.get('/d/a')).kv?.modRevision, 1, 'visible once acknowledged');
      assert.equal((await next).value?.kv.modRevision, 1);
    } finally {
      stop.abort();
      await storage.close();
    }
  });

  it('evaluates guards in order within a batch', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      const [created, updated, stale, deleted, recreated] = await Promise.all([
        storage.create('/k', bytes('1')),
        storage.update('/k', bytes('2'), 1),
        storage.update('/k', bytes('3'), 1),
        storage.delete('/k', 2),
        storage.create('/k', bytes('4')),
      ]);
      assert.deepEqual(
        [created, updated, stale, deleted, recreated].map((r) => [r.succeeded, r.revision]),
        [[true, 1], [true, 2], [false, 2], [true, 3], [true, 4]],
      );
      assert.equal(storage.stats().transactions, 1);
    } finally {
      await storage.close();
    }
  });

  it('keeps every write and revision across close and reopen', async () => {
    const path = temp.path();
    const first = SqliteStorage.open({ path });
    const a = await first.create('/r/a', bytes('a1'));
    assert.ok(a.succeeded);
    await first.update('/r/a', bytes('a2'), a.revision);
    await first.create('/r/b', bytes('b1'));
    await first.delete('/r/b');
    await first.compact(3);
    const lastBefore = await first.currentRevision();
    const listBefore = await first.list('/r/');
    // Queued but not awaited: close must flush them before closing.
    const pending = first.create('/r/c', bytes('c1'));
    await first.close();
    const c = await pending;
    assert.ok(c.succeeded);
    assert.equal(c.revision, lastBefore + 1);

    const second = SqliteStorage.open({ path });
    try {
      assert.equal(await second.currentRevision(), c.revision);
      assert.equal(await second.compactedRevision(), 3);
      const listAfter = await second.list('/r/');
      assert.deepEqual(listAfter.kvs.slice(0, 1), listBefore.kvs);
      assert.equal(listAfter.kvs[1]!.key, '/r/c');
      assert.equal(listAfter.kvs[1]!.modRevision, c.revision);
      const next = await second.create('/r/d', bytes('d'));
      assert.equal(next.revision, c.revision + 1, 'revisions continue after reopen');
    } finally {
      await second.close();
    }
  });

  it('never reuses a revision after the newest rows were removed', async () => {
    const path = temp.path();
    const first = SqliteStorage.open({ path });
    const a = await first.create('/x/a', bytes('a'));
    const b = await first.create('/x/b', bytes('b'));
    const deleted = await first.delete('/x/a');
    const deletedB = await first.delete('/x/b');
    await first.compact(deletedB.revision);
    await first.close();
    assert.deepEqual([a.revision, b.revision, deleted.revision, deletedB.revision], [1, 2, 3, 4]);
    const second = SqliteStorage.open({ path });
    try {
      assert.equal(await second.currentRevision(), 4);
      assert.equal((await second.create('/x/c', bytes('c'))).revision, 5);
    } finally {
      await second.close();
    }
  });

  it('refuses a second opener of the same file', async () => {
    const path = temp.path();
    await SqliteStorage.open({ path }).close();
    // Reopened without writing: holding the file must not depend on having written.
    const owner = SqliteStorage.open({ path });
    try {
      assert.throws(() => SqliteStorage.open({ path, lockTimeoutMs: 50 }), UnavailableError);
    } finally {
      await owner.close();
    }
    const next = SqliteStorage.open({ path });
    await next.close();
  });

  it('reports the latency of each operation', async () => {
    const seen = new Map<string, number[]>();
    const storage = SqliteStorage.open({
      path: temp.path(),
      observe: (op, seconds) => seen.set(op, [...(seen.get(op) ?? []), seconds]),
    });
    try {
      const created = await storage.create('/o/a', bytes('1'));
      await storage.update('/o/a', bytes('2'), created.revision);
      await storage.get('/o/a');
      await storage.list('/o/');
      await storage.count('/o/');
      await storage.delete('/o/a');
      await storage.compact(await storage.currentRevision());
      assert.deepEqual([...seen.keys()].sort(), ['compact', 'count', 'create', 'delete', 'get', 'list', 'update']);
      for (const values of seen.values()) assert.ok(values.every((s) => s >= 0 && s < 10));
    } finally {
      await storage.close();
    }
  });

  it('refuses operations after close', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    await storage.close();
    await assert.rejects(storage.create('/a', bytes('1')), UnavailableError);
    await assert.rejects(storage.get('/a'), UnavailableError);
    await assert.rejects(storage.list('/'), UnavailableError);
    const events = storage.watch('/', { startRevision: 0, signal: new AbortController().signal })[Symbol.asyncIterator]();
    await assert.rejects(events.next(), (err: Error) => err.name === 'WatchClosedError');
    await storage.close();
  });
});
