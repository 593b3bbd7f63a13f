import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KeyValue } from '../storage.js';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const total = 10_000;
const value = new Uint8Array(1000).fill(1);

/** Lists the whole prefix in pages at one revision. */
async function listPaged(storage: SqliteStorage, prefix: string, limit: number): Promise<{ kvs: KeyValue[]; pages: number }> {
  const kvs: KeyValue[] = [];
  let revision: number | undefined;
  let pages = 0;
  for (let startAfter: string | undefined; ; ) {
    const page = await storage.list(prefix, { limit, ...(startAfter ? { startAfter } : {}), ...(revision ? { revision } : {}) });
    revision = page.revision;
    pages++;
    kvs.push(...page.kvs);
    assert.equal(page.remaining, total - kvs.length);
    if (!page.more) break;
    startAfter = page.kvs.at(-1)!.key;
  }
  return { kvs, pages };
}

describe('SqliteStorage lists', () => {
  let storage: SqliteStorage;
  before(async () => {
    storage = SqliteStorage.open({ path: temp.path() });
    // Some history per key, and neighbours on both sides of the prefix.
    await Promise.all(Array.from({ length: total }, (_, i) => storage.create(`/pods/ns/p${String(i).padStart(5, '0')}`, value)));
    await Promise.all(Array.from({ length: 2000 }, (_, i) => storage.update(`/pods/ns/p${String(i * 5).padStart(5, '0')}`, value, i * 5 + 1)));
    await Promise.all(Array.from({ length: 1000 }, (_, i) => storage.create(`/pods/nt/p${i}`, value)));
    await Promise.all(Array.from({ length: 1000 }, (_, i) => storage.create(`/pods/nr/p${i}`, value)));
  });
  after(() => storage.close());

  it('pages through 10,000 keys: every key once, in order, in 20 pages', async () => {
    // The cost per page (an index seek from the continue key, never a scan
    // from the prefix) is fixed by the query's INDEXED BY plan and measured by
    // `npm run bench -- apiserver`; a test asserting wall time would be flaky.
    const full = await storage.list('/pods/ns/');
    assert.equal(full.kvs.length, total);
    const paged = await listPaged(storage, '/pods/ns/', 500);
    assert.equal(paged.pages, 20);
    assert.deepEqual(paged.kvs.map((kv) => kv.key), full.kvs.map((kv) => kv.key));
  });

  it('returns the latest value of each key, sorted', async () => {
    const page = await storage.list('/pods/ns/', { limit: 3, startAfter: '/pods/ns/p00004' });
    assert.deepEqual(page.kvs.map((kv) => [kv.key, kv.createRevision, kv.modRevision]), [
      ['/pods/ns/p00005', 6, total + 2],
      ['/pods/ns/p00006', 7, 7],
      ['/pods/ns/p00007', 8, 8],
    ]);
    assert.equal(await storage.count('/pods/ns/'), total);
    assert.equal(await storage.count('/pods/'), total + 2000);
  });

  it('treats a startAfter before the prefix as the start, and after it as the end', async () => {
    assert.equal((await storage.list('/pods/nt/', { limit: 1, startAfter: '/pods/a' })).kvs[0]!.key, '/pods/nt/p0');
    const past = await storage.list('/pods/nr/', { startAfter: '/pods/ns/' });
    assert.deepEqual([past.kvs.length, past.more], [0, false]);
  });

  it('orders and bounds non-ASCII keys by code point', async () => {
    const keys = ['/u/a', '/u/z', '/u/é', '/u/\uffff', '/u/😀', '/u/😀/x'];
    for (const key of [...keys].reverse()) await storage.create(key, value);
    await storage.create('/u0', value);
    await storage.create('/v/😀', value);
    const listed = await storage.list('/u/');
    assert.deepEqual(listed.kvs.map((kv) => kv.key), keys);
    assert.deepEqual((await storage.list('/u/😀')).kvs.map((kv) => kv.key), ['/u/😀', '/u/😀/x']);
    assert.deepEqual((await storage.list('/u/', { startAfter: '/u/\uffff' })).kvs.map((kv) => kv.key), ['/u/😀', '/u/😀/x']);
  });
});
