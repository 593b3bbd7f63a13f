import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConformanceFixture } from './fixture.js';
import { bytes, failed, plain, succeeded, text } from './fixture.js';

export function describeWrites(fixture: ConformanceFixture): void {
  describe('writes', () => {
    it('bumps one global revision on every write, across keys', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const before = await storage.currentRevision();
      const r1 = succeeded(await storage.create(`${p}a`, bytes('1'))).revision;
      const r2 = succeeded(await storage.create(`${p}b`, bytes('1'))).revision;
      const r3 = succeeded(await storage.update(`${p}a`, bytes('2'), r1)).revision;
      const r4 = succeeded(await storage.delete(`${p}b`)).revision;
      assert.ok(before < r1 && r1 < r2 && r2 < r3 && r3 < r4, `revisions ${[before, r1, r2, r3, r4].join(', ')}`);
      assert.ok((await storage.currentRevision()) >= r4);
    });

    it('sets createRevision and modRevision', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}k`;
      const created = succeeded(await storage.create(key, bytes('v1')));
      assert.deepEqual(plain(created.kv), { key, value: 'v1', createRevision: created.revision, modRevision: created.revision });
      const updated = succeeded(await storage.update(key, bytes('v2'), created.revision));
      assert.deepEqual(plain(updated.kv), { key, value: 'v2', createRevision: created.revision, modRevision: updated.revision });
      assert.deepEqual(plain((await storage.get(key)).kv), plain(updated.kv));
      const deleted = succeeded(await storage.delete(key));
      assert.deepEqual(plain(deleted.prev), plain(updated.kv));
      const recreated = succeeded(await storage.create(key, bytes('v3')));
      assert.ok(recreated.revision > deleted.revision);
      assert.equal(recreated.kv.createRevision, recreated.revision, 'a re-created key starts a new life');
    });

    it('creates only if absent; a second create fails with the current kv', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}k`;
      const first = succeeded(await storage.create(key, bytes('first')));
      const second = failed(await storage.create(key, bytes('second')));
      assert.deepEqual(plain(second.current), plain(first.kv));
      assert.ok(second.revision >= first.revision);
      assert.equal(text((await storage.get(key)).kv!.value), 'first');
    });

    it('updates only when modRevision matches the guard', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}k`;
      const created = succeeded(await storage.create(key, bytes('v1')));
      const updated = succeeded(await storage.update(key, bytes('v2'), created.revision));
      const stale = failed(await storage.update(key, bytes('v3'), created.revision));
      assert.deepEqual(plain(stale.current), plain(updated.kv));
      assert.equal(text((await storage.get(key)).kv!.value), 'v2');
    });

    it('fails to update a missing key without a current kv', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const missing = failed(await storage.update(`${p}never`, bytes('v'), 1));
      assert.equal(missing.current, undefined);
      const created = succeeded(await storage.create(`${p}gone`, bytes('v')));
      succeeded(await storage.delete(`${p}gone`));
      const gone = failed(await storage.update(`${p}gone`, bytes('v2'), created.revision));
      assert.equal(gone.current, undefined);
    });

    it('deletes with and without a guard', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const a = succeeded(await storage.create(`${p}a`, bytes('a')));
      const deletedA = succeeded(await storage.delete(`${p}a`));
      assert.deepEqual(plain(deletedA.prev), plain(a.kv));
      assert.ok(deletedA.revision > a.revision);
      assert.equal((await storage.get(`${p}a`)).kv, undefined);

      const b = succeeded(await storage.create(`${p}b`, bytes('b1')));
      const b2 = succeeded(await storage.update(`${p}b`, bytes('b2'), b.revision));
      const stale = failed(await storage.delete(`${p}b`, b.revision));
      assert.deepEqual(plain(stale.current), plain(b2.kv));
      assert.equal(text((await storage.get(`${p}b`)).kv!.value), 'b2', 'a failed guard deletes nothing');
      const deletedB = succeeded(await storage.delete(`${p}b`, b2.revision));
      assert.deepEqual(plain(deletedB.prev), plain(b2.kv));
    });

    it('fails to delete a missing key without a current kv', async () => {
      const { storage } = fixture;
      const result = failed(await storage.delete(`${fixture.prefix()}missing`));
      assert.equal(result.current, undefined);
      const guarded = failed(await storage.delete(`${fixture.prefix()}missing`, 5));
      assert.equal(guarded.current, undefined);
    });

    it('gets exact bytes, and nothing for a missing key', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const binary = new Uint8Array([0, 1, 2, 255, 128, 0]);
      const created = succeeded(await storage.create(`${p}bin`, binary));
      succeeded(await storage.create(`${p}empty`, new Uint8Array(0)));
      const got = await storage.get(`${p}bin`);
      assert.deepEqual([...got.kv!.value], [...binary]);
      assert.ok(got.revision >= created.revision);
      assert.equal((await storage.get(`${p}empty`)).kv!.value.length, 0);
      const missing = await storage.get(`${p}missing`);
      assert.equal(missing.kv, undefined);
      assert.ok(missing.revision >= created.revision);
    });
  });
}
