import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConformanceFixture } from './fixture.js';
import { bytes, plain, succeeded, text } from './fixture.js';

export function describeConcurrency(fixture: ConformanceFixture): void {
  describe('concurrent writes', () => {
    it('gives parallel creates of distinct keys distinct revisions', async () => {
      const { storage } = fixture;
      const p = fixture.prefix();
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => storage.create(`${p}k${i}`, bytes(String(i)))));
      const revisions = results.map((r) => succeeded(r).revision);
      assert.equal(new Set(revisions).size, 200);
      assert.equal((await storage.list(p)).kvs.length, 200);
    });

    it('lets exactly one of many parallel creates of one key win', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}k`;
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => storage.create(key, bytes(String(i)))));
      const winners = results.filter((r) => r.succeeded);
      assert.equal(winners.length, 1);
      const winner = succeeded(winners[0]!);
      for (const r of results) if (!r.succeeded) assert.deepEqual(plain(r.current), plain(winner.kv));
    });

    it('lets exactly one of many updates with the same guard win', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}k`;
      const base = succeeded(await storage.create(key, bytes('base')));
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => storage.update(key, bytes(String(i)), base.revision)));
      const winners = results.filter((r) => r.succeeded);
      assert.equal(winners.length, 1);
      const winner = succeeded(winners[0]!);
      for (const r of results) if (!r.succeeded) assert.equal(r.current?.modRevision, winner.revision);
      assert.deepEqual(plain((await storage.get(key)).kv), plain(winner.kv));
    });

    it('loses no increment under read-modify-write retries', async () => {
      const { storage } = fixture;
      const key = `${fixture.prefix()}counter`;
      succeeded(await storage.create(key, bytes('0')));
      const increment = async () => {
        for (;;) {
          const { kv } = await storage.get(key);
          const result = await storage.update(key, bytes(String(Number(text(kv!.value)) + 1)), kv!.modRevision);
          if (result.succeeded) return;
        }
      };
      await Promise.all(Array.from({ length: 20 }, () => (async () => {
        for (let i = 0; i < 5; i++) await increment();
      })()));
      assert.equal(text((await storage.get(key)).kv!.value), '100');
    });
  });
}
