import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompactedError, FutureRevisionError } from '../errors.js';
import type { KeyValue } from '../storage.js';
import type { ConformanceFixture } from './fixture.js';
import { bytes, plain, succeeded, text } from './fixture.js';

const entries = (kvs: KeyValue[]) => kvs.map((kv) => [kv.key, text(kv.value)]);

export function describeLists(fixture: ConformanceFixture): void {
  describe('lists', () => {
    it('lists only the prefix, sorted by key', async () => {
      const { storage } = fixture;
      const base = fixture.prefix().slice(0, -1);
      const p = `${base}/`;
      for (const key of [`${p}c`, `${p}a`, `${p}b/x`, `${p}b`, `${base}-sibling/a`, `${base}0`, base]) {
        succeeded(await storage.create(key, bytes(key.slice(base.length))));
      }
      const last = await storage.currentRevision();
      const result = await storage.list(p);
      assert.deepEqual(result.kvs.map((kv) => kv.key), [`${p}a`, `${p}b`, `${p}b/x`, `${p}c`]);
      assert.equal(text(result.kvs[0]!.value), '/a');
      assert.equal(result.more, false);
      assert.ok(result.revision >= last);
      assert.equal(await storage.count(p), 4);
    });

    it('lists at an older revision', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a1')));
      const b = succeeded(await storage.create(`${p}b`, bytes('b1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('a2'), a.revision));
      succeeded(await storage.delete(`${p}b`));
      succeeded(await storage.create(`${p}c`, bytes('c1')));

      const atB = await storage.list(p, { revision: b.revision });
      assert.equal(atB.revision, b.revision);
      assert.deepEqual(entries(atB.kvs), [[`${p}a`, 'a1'], [`${p}b`, 'b1']]);
      assert.deepEqual(plain(atB.kvs[0]), plain(a.kv));
      const atA2 = await storage.list(p, { revision: a2.revision });
      assert.deepEqual(entries(atA2.kvs), [[`${p}a`, 'a2'], [`${p}b`, 'b1']]);
      const atA = await storage.list(p, { revision: a.revision });
      assert.deepEqual(entries(atA.kvs), [[`${p}a`, 'a1']]);
      assert.deepEqual(entries((await storage.list(p)).kvs), [[`${p}a`, 'a2'], [`${p}c`, 'c1']]);
      assert.equal(await storage.count(p), 2);
    });

    it('pages with limit and startAfter', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const keys = Array.from({ length: 23 }, (_, i) => `${p}k${String(i).padStart(3, '0')}`);
      await Promise.all(keys.map((key) => storage.create(key, bytes(key))));
      succeeded(await storage.delete(keys[5]!));
      const live = keys.filter((_, i) => i !== 5);

      const first = await storage.list(p, { limit: 7 });
      // Later writes must not show up in pages read at the first page's revision.
      succeeded(await storage.create(`${p}k000a`, bytes('late')));
      succeeded(await storage.delete(keys[20]!));
      const seen = [...first.kvs];
      const pages = [first];
      let page = first;
      while (page.more) {
        page = await storage.list(p, { limit: 7, startAfter: page.kvs.at(-1)!.key, revision: first.revision });
        assert.equal(page.revision, first.revision);
        pages.push(page);
        seen.push(...page.kvs);
      }
      assert.deepEqual(seen.map((kv) => kv.key), live);
      assert.deepEqual(pages.map((pg) => pg.kvs.length), [7, 7, 7, 1]);
      assert.deepEqual(pages.map((pg) => pg.more), [true, true, true, false]);
      let returned = 0;
      for (const pg of pages) {
        returned += pg.kvs.length;
        if (pg.remaining !== undefined) assert.equal(pg.remaining, live.length - returned);
      }
      const exact = await storage.list(p, { limit: live.length, revision: first.revision });
      assert.equal(exact.more, false, 'a limit equal to the size leaves nothing more');
      assert.equal(exact.kvs.length, live.length);
    });

    it('throws CompactedError below the compacted revision', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('1')));
      const a2 = succeeded(await storage.update(`${p}a`, bytes('2'), a.revision));
      await storage.compact(a2.revision);
      await assert.rejects(storage.list(p, { revision: a.revision }), CompactedError);
      assert.deepEqual(entries((await storage.list(p, { revision: a2.revision })).kvs), [[`${p}a`, '2']]);
    });

    it('throws FutureRevisionError above the current revision', async () => {
      const { storage } = fixture;
      const current = await storage.currentRevision();
      await assert.rejects(storage.list(fixture.prefix(), { revision: current + 1_000_000 }), FutureRevisionError);
    });
  });
}
