import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTestPki } from './test-pki.js';

test('test certificates are kept in a private file and reused; a shared or broken file is not trusted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-pki-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'pki.json');
  const first = await loadTestPki(file);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), first);
  assert.deepEqual(await loadTestPki(file), first, 'read back, not made again');

  await chmod(file, 0o644);
  const afterChmod = await loadTestPki(file);
  assert.notEqual(afterChmod.ca.certPem, first.ca.certPem, 'a file others can read is not used');

  await writeFile(file, '{"ca":', { mode: 0o600 });
  await chmod(file, 0o600);
  const afterCorrupt = await loadTestPki(file);
  assert.match(afterCorrupt.serving.certPem, /BEGIN CERTIFICATE/);
  assert.deepEqual(await loadTestPki(file), afterCorrupt);
});
