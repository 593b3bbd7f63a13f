import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CompactedError } from '../errors.js';
import { take } from '../conformance/fixture.js';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const value = new Uint8Array(1024).fill(7);

/** Updates each key once per round (one batch per round); returns the last revision. */
async function churn(storage: SqliteStorage, keys: number, rounds: number, onRound: (round: number) => Promise<void>): Promise<void> {
  const revisions = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    const results = await Promise.all(
      Array.from({ length: keys }, (_, i) => {
        const key = `/churn/${i}`;
        const rev = revisions.get(key);
        return rev === undefined ? storage.create(key, value) : storage.update(key, value, rev);
      }),
    );
    results.forEach((r, i) => {
      assert.ok(r.succeeded);
      revisions.set(`/churn/${i}`, r.revision);
    });
    await onRound(round);
  }
}

describe('SqliteStorage compaction', () => {
  it('keeps the file bounded under update churn with periodic compaction', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      let settled = 0;
      let peak = 0;
      await churn(storage, 20, 600, async (round) => {
        if (round % 25 === 24) await storage.compact(await storage.currentRevision());
        const { pageCount } = storage.stats();
        if (round === 199) settled = pageCount;
        if (round > 199) peak = Math.max(peak, pageCount);
      });
      // Without compaction 12,000 rows of 2 KiB would need ~6,000 pages; with it the file stays where it settled.
      assert.ok(settled > 0 && peak <= settled * 1.25 + 16, `pages settled at ${settled}, later peak ${peak}`);
      const listed = await storage.list('/churn/');
      assert.equal(listed.kvs.length, 20);
    } finally {
      await storage.close();
    }
  });

  it('grows without compaction (so the bound above is meaningful)', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      let at200 = 0;
      await churn(storage, 20, 400, async (round) => {
        if (round === 199) at200 = storage.stats().pageCount;
      });
      assert.ok(storage.stats().pageCount > at200 * 1.5);
    } finally {
      await storage.close();
    }
  });

  it('sweeps in chunks and keeps exactly the state at the compacted revision', async () => {
    const storage = SqliteStorage.open({ path: temp.path(), compactionChunkSize: 7 });
    try {
      await churn(storage, 10, 10, async () => undefined);
      const tomb = await storage.delete('/churn/3');
      const gone = await storage.delete('/churn/4');
      const at = await storage.currentRevision();
      const before = await storage.list('/churn/', { revision: at });
      const afterwards = await storage.update('/churn/5', value, before.kvs.find((kv) => kv.key === '/churn/5')!.modRevision);
      assert.ok(tomb.succeeded && gone.succeeded && afterwards.succeeded);
      const transactions = storage.stats().transactions;
      await storage.compact(at);
      assert.ok(storage.stats().transactions - transactions >= Math.floor(at / 7), 'one transaction per chunk');
      assert.deepEqual(await storage.list('/churn/', { revision: at }), before);
      await assert.rejects(storage.list('/churn/', { revision: at - 1 }), CompactedError);

      // A watch from the compacted revision still sees the delete at that revision and what followed.
      const controller = new AbortController();
      const events = storage.watch('/churn/', { startRevision: at, signal: controller.signal })[Symbol.asyncIterator]();
      const got = await take(events, 2).finally(() => controller.abort());
      assert.deepEqual(got.map((e) => [e.type, e.kv.key]), [['DELETE', '/churn/4'], ['PUT', '/churn/5']]);
      assert.equal(await storage.count('/churn/'), 8);
    } finally {
      await storage.close();
    }
  });

  it('hands surplus pages back after a mass delete', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      const created = await Promise.all(Array.from({ length: 2000 }, (_, i) => storage.create(`/mass/${i}`, value)));
      await storage.compact(await storage.currentRevision());
      await Promise.all(created.map((r, i) => storage.delete(`/mass/${i}`, r.revision)));
      const full = storage.stats().pageCount;
      await storage.compact(await storage.currentRevision());
      const after = storage.stats().pageCount;
      assert.ok(after < full * 0.6, `pages ${full} -> ${after}`);
      assert.equal(await storage.count('/mass/'), 0);
    } finally {
      await storage.close();
    }
  });

  it('is idempotent and rejects a future revision', async () => {
    const storage = SqliteStorage.open({ path: temp.path() });
    try {
      await churn(storage, 3, 3, async () => undefined);
      await storage.compact(5);
      await storage.compact(4);
      assert.equal(await storage.compactedRevision(), 5);
      await assert.rejects(storage.compact(1000), (err: Error) => err.name === 'FutureRevisionError');
    } finally {
      await storage.close();
    }
  });
});
