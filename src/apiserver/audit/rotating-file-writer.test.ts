import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { backupName, listBackups, RotatingFileWriter } from './rotating-file-writer.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'skiff-audit-log-'));
  dirs.push(d);
  return d;
}

describe('RotatingFileWriter', () => {
  it('names backups as lumberjack does', () => {
    assert.equal(backupName('/var/log/audit.log', new Date('2026-11-24T09:10:11.123Z')), '/var/log/audit-2026-11-24T09-10-11.123.log');
  });

  it('rotates before a line would pass the size, keeping whole lines and the newest backups', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.log');
    let t = Date.parse('2026-11-24T09:00:00.000Z');
    const errors: Error[] = [];
    const w = new RotatingFileWriter({ path, maxSizeBytes: 100, maxBackups: 2, maxAgeDays: 0, clock: { now: () => (t += 1000) }, onError: (e) => errors.push(e) });
    const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(20) })}\n`; // 39 bytes
    for (let i = 0; i < 10; i++) w.write(line(i));
    await w.flush();
    // two lines per file: 10 lines are 5 files, of which the current and the newest 2 backups remain
    const backups = await listBackups(path);
    assert.equal(backups.length, 2);
    assert.deepEqual((await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l).i), [8, 9]);
    assert.deepEqual((await readFile(backups[0].path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l).i), [6, 7]);
    assert.deepEqual((await readFile(backups[1].path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l).i), [4, 5]);
    for (const f of [path, ...backups.map((b) => b.path)]) assert.ok((await readFile(f)).length <= 100);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(errors, []);
    await w.close();
  });

  it('appends to an existing file and rotates it when full', async () => {
    const dir = await tempDir();
    const path = join(dir, 'a.log');
    await writeFile(path, `${'y'.repeat(90)}\n`);
    const w = new RotatingFileWriter({ path, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0, onError: () => {} });
    w.write('short\n');
    w.write(`${'z'.repeat(20)}\n`);
    await w.close();
    assert.equal(await readFile(path, 'utf8'), `${'z'.repeat(20)}\n`);
    const [backup] = await listBackups(path);
    assert.equal(await readFile(backup.path, 'utf8'), `${'y'.repeat(90)}\nshort\n`);
  });

  it('removes backups older than the maximum age', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.log');
    const now = Date.parse('2026-11-24T09:00:00.000Z');
    await writeFile(backupName(path, new Date(now - 3 * 86_400_000)), 'old\n');
    await writeFile(backupName(path, new Date(now - 3_600_000)), 'recent\n');
    await writeFile(join(dir, 'unrelated.log'), 'keep\n');
    const w = new RotatingFileWriter({ path, maxSizeBytes: 10, maxBackups: 0, maxAgeDays: 2, clock: { now: () => now }, onError: () => {} });
    w.write('12345678\n');
    w.write('abcdefgh\n');
    await w.close();
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, ['audit-2026-11-24T08-00-00.000.log', 'audit-2026-11-24T09-00-00.000.log', 'audit.log', 'unrelated.log']);
  });

  it('drops a line larger than the file may be and reports a failed write without throwing', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.log');
    const errors: string[] = [];
    const w = new RotatingFileWriter({ path, maxSizeBytes: 10, maxBackups: 0, maxAgeDays: 0, onError: (e) => errors.push(e.message) });
    w.write(`${'x'.repeat(30)}\n`);
    w.write('ok\n');
    await w.flush();
    assert.equal(await readFile(path, 'utf8'), 'ok\n');
    assert.match(errors[0], /write length 31 exceeds maximum file size 10/);
    await w.close();
    // a path that cannot be opened (here a directory): reported, and the writer carries on
    const w2 = new RotatingFileWriter({ path: dir, maxSizeBytes: 10, maxBackups: 0, maxAgeDays: 0, onError: (e) => errors.push(e.message) });
    w2.write('x\n');
    await w2.close();
    assert.match(errors.at(-1)!, /EISDIR/);
  });
});
