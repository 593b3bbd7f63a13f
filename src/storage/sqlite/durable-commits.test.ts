import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UnavailableError } from '../errors.js';
import { DurableCommits, FileSync } from './durable-commits.js';

/** A sync the test finishes by hand. */
function manualSync() {
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  return {
    pending,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  };
}

const turn = () => new Promise((r) => setImmediate(r));

test('a commit becomes durable only after a sync that began after it, in commit order', async () => {
  const s = manualSync();
  const d = new DurableCommits(s.sync);
  const seen: string[] = [];
  const a = d.committed(() => seen.push('a'));
  assert.equal(s.pending.length, 1, 'the first commit starts a sync');
  const b = d.committed(() => seen.push('b'));
  const c = d.committed(() => seen.push('c'));
  assert.equal(s.pending.length, 1, 'commits during a sync wait for the next one');
  await turn();
  assert.deepEqual(seen, [], 'nothing is durable before its sync finished');
  s.pending[0].resolve();
  await a;
  await turn();
  assert.deepEqual(seen, ['a']);
  assert.equal(s.pending.length, 2, 'the waiting commits share one new sync');
  s.pending[1].resolve();
  await Promise.all([b, c]);
  assert.deepEqual(seen, ['a', 'b', 'c']);
  await d.idle();
});

test('a failed sync refuses the writes it covered and every later one', async () => {
  const s = manualSync();
  const d = new DurableCommits(s.sync);
  const seen: string[] = [];
  const a = d.committed(() => seen.push('a'));
  const b = d.committed(() => seen.push('b'));
  s.pending[0].reject(new Error('EIO'));
  await assert.rejects(a, UnavailableError);
  await assert.rejects(b, UnavailableError);
  await assert.rejects(d.committed(() => seen.push('c')), UnavailableError);
  assert.deepEqual(seen, []);
  assert.equal(s.pending.length, 1, 'no sync is tried after a failure');
});

test('FileSync syncs a real file and reports a missing one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-sync-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db-wal');
  writeFileSync(path, 'x');
  const f = new FileSync(path);
  await f.sync();
  await f.sync();
  await f.close();
  const missing = new FileSync(join(dir, 'nope'));
  await assert.rejects(missing.sync(), { code: 'ENOENT' });
  writeFileSync(join(dir, 'nope'), 'x');
  await missing.sync();
  await missing.close();
});
