import assert from 'node:assert/strict';
import { closeSync, openSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { IntegrityError, NoSpaceError, RequestTooLargeError, UnavailableError } from '../errors.js';
import { APPLICATION_ID } from './schema.js';
import { SqliteStorage } from './sqlite-storage.js';
import { TempDbs } from './testing/temp-db.js';

const temp = new TempDbs();
after(() => temp.cleanup());

const bytes = (s: string) => new TextEncoder().encode(s);

async function filled(path: string, n: number, size = 100): Promise<void> {
  const s = SqliteStorage.open({ path });
  for (let i = 0; i < n; i++) await s.create(`/registry/configmaps/default/c${i}`, bytes('x'.repeat(size)));
  await s.close();
}

describe('SqliteStorage integrity at start', () => {
  it('marks its file and opens it again', async () => {
    const path = temp.path();
    await filled(path, 3);
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma('application_id', { simple: true }), APPLICATION_ID);
    db.close();
    const s = SqliteStorage.open({ path });
    assert.equal((await s.list('/registry/')).kvs.length, 3);
    await s.close();
  });

  it('refuses a corrupt file with a clear message and leaves it as it was', async () => {
    const path = temp.path();
    await filled(path, 500, 500);
    const size = statSync(path).size;
    // scribble over the b-tree pages after the first one
    const fd = openSync(path, 'r+');
    for (let page = 1; page * 4096 < size; page += 3) writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, page * 4096);
    closeSync(fd);
    assert.throws(() => SqliteStorage.open({ path }), (err: unknown) => {
      assert.ok(err instanceof IntegrityError, String(err));
      assert.match(err.message, /state\.db is corrupt \(.+\); refusing to start over it/);
      return true;
    });
    assert.equal(statSync(path).size, size);
  });

  it('refuses a file that is not a SQLite database', () => {
    const path = temp.path();
    writeFileSync(path, 'not a database at all, but long enough to look like one '.repeat(100));
    assert.throws(() => SqliteStorage.open({ path }), /is not a SQLite database \(file is not a database\); refusing to start over it/);
  });

  it("refuses another application's SQLite database", () => {
    for (const [appId, expected] of [
      [0, /is not a skiff database \(tables: users\)/],
      [0x0f055112, /is not a skiff database \(application_id 0xf055112\)/],
    ] as const) {
      const path = temp.path();
      const db = new Database(path);
      db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY)');
      db.pragma(`application_id = ${appId}`);
      db.close();
      assert.throws(() => SqliteStorage.open({ path }), expected);
    }
  });
});

describe('SqliteStorage limits and faults', () => {
  it('refuses a value over the object limit with etcd’s error, storing nothing', async () => {
    const s = SqliteStorage.open({ path: temp.path(), maxObjectBytes: 1000 });
    try {
      await assert.rejects(s.create('/registry/configmaps/default/big', new Uint8Array(1001)), (err: unknown) => {
        assert.ok(err instanceof RequestTooLargeError);
        assert.equal(err.message, 'etcdserver: request is too large');
        return true;
      });
      assert.equal((await s.get('/registry/configmaps/default/big')).kv, undefined);
      await s.create('/registry/configmaps/default/small', new Uint8Array(900));
    } finally {
      await s.close();
    }
  });

  it('raises NOSPACE past the quota: puts refused, reads and deletes served, cleared after compaction and defragmentation', async () => {
    const path = temp.path();
    const s = SqliteStorage.open({ path, quotaBytes: 1024 * 1024 });
    try {
      let n = 0;
      let refused: unknown;
      for (; n < 1000 && !refused; n++) {
        await s.create(`/registry/configmaps/default/c${n}`, new Uint8Array(20_000)).catch((err: unknown) => (refused = err));
      }
      assert.ok(refused instanceof NoSpaceError, `refused with ${String(refused)} after ${n} writes`);
      assert.equal(refused.message, 'etcdserver: mvcc: database space exceeded');
      assert.deepEqual((await s.alarms()).map((a) => a.type), ['NOSPACE']);
      await assert.rejects(s.create('/registry/configmaps/default/tiny', bytes('x')), NoSpaceError);
      const list = await s.list('/registry/configmaps/');
      assert.ok(list.kvs.length > 10);
      // deletes reclaim space even under the alarm
      for (const kv of list.kvs) assert.equal((await s.delete(kv.key)).succeeded, true);
      assert.equal((await s.alarms()).length, 1, 'deleting alone does not shrink the file');
      await s.compact(await s.currentRevision());
      await s.defragment();
      assert.deepEqual(await s.alarms(), []);
      await s.create('/registry/configmaps/default/after', bytes('x'));
    } finally {
      await s.close();
    }
  });

  for (const how of ['deleted', 'replaced'] as const) {
    it(`stops acknowledging writes once its file is ${how}`, async () => {
      const path = temp.path();
      const s = SqliteStorage.open({ path });
      try {
        await s.create('/registry/configmaps/default/before', bytes('x'));
        if (how === 'deleted') unlinkSync(path);
        else {
          writeFileSync(`${path}.other`, 'x');
          renameSync(`${path}.other`, path);
        }
        await assert.rejects(s.create('/registry/configmaps/default/after', bytes('x')), (err: unknown) => {
          assert.ok(err instanceof UnavailableError);
          assert.match(err.message, new RegExp(`state\\.db was ${how} while the server was running; writes are refused`));
          return true;
        });
        await assert.rejects(s.delete('/registry/configmaps/default/before'), UnavailableError);
        assert.deepEqual((await s.alarms()).map((a) => a.type), ['CORRUPT']);
      } finally {
        await s.close();
      }
    });
  }

  it('persists the compacted revision before reads use it', async () => {
    const path = temp.path();
    const s = SqliteStorage.open({ path });
    for (let i = 0; i < 5; i++) await s.create(`/registry/configmaps/default/c${i}`, bytes('x'));
    const rev = await s.currentRevision();
    await s.compact(rev - 1);
    await s.close();
    const again = SqliteStorage.open({ path });
    try {
      assert.equal(await again.compactedRevision(), rev - 1);
    } finally {
      await again.close();
    }
  });
});
