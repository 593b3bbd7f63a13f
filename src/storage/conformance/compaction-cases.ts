import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConformanceFixture } from './fixture.js';
import { bytes, plain, succeeded, take, text } from './fixture.js';

export function describeCompaction(fixture: ConformanceFixture): void {
  describe('compaction', () => {
    it('keeps the latest value of live keys and the current revision', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('a2'), a.revision));
      const a3 = succeeded(await storage.update(`${p}a`, bytes('a3'), a2.revision));
      succeeded(await storage.create(`${p}b`, bytes('b1')));
      succeeded(await storage.delete(`${p}b`));
      const c = succeeded(await storage.create(`${p}c`, bytes('c1')));
      const current = await storage.currentRevision();

      await storage.compact(c.revision);
      assert.equal(await storage.currentRevision(), current, 'compaction is not a write');
      assert.ok((await storage.compactedRevision()) >= c.revision);
      assert.deepEqual(plain((await storage.get(`${p}a`)).kv), plain(a3.kv));
      assert.equal((await storage.get(`${p}b`)).kv, undefined);
      const listed = await storage.list(p, { revision: c.revision });
      assert.deepEqual(listed.kvs.map(plain), [plain(a3.kv), plain(c.kv)]);
      assert.equal(await storage.count(p), 2);

      // History stays usable from the compacted revision on.
      const a4 = succeeded(await storage.update(`${p}a`, bytes('a4'), a3.revision));
      assert.ok(a4.revision > current);
      const b = succeeded(await storage.create(`${p}b`, bytes('b2')));
      assert.equal(b.kv.createRevision, b.revision);
      const controller = new AbortController();
      try {
        const events = storage.watch(p, { startRevision: c.revision + 1, signal: controller.signal })[Symbol.asyncIterator]();
        const got = await take(events, 2);
        assert.deepEqual(got.map((e) => [e.type, e.kv.key, text(e.kv.value), e.prevKv && text(e.prevKv.value)]), [
          ['PUT', `${p}a`, 'a4', 'a3'],
          ['PUT', `${p}b`, 'b2', undefined],
        ]);
      } finally {
        controller.abort();
      }
    });
  });
}
