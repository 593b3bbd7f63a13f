import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { containerLogFiles, readContainerLogs, type LogOptions } from './container-log-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'skiff-logs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const line = (sec: number, text: string, stream = 'stdout', tag = 'F') => `2024-01-02T03:04:${String(sec).padStart(2, '0')}.000000001Z ${stream} ${tag} ${text}\n`;
const base: LogOptions = { follow: false, timestamps: false };

async function read(path: string, opts: Partial<LogOptions> = {}): Promise<string> {
  const out: Buffer[] = [];
  await readContainerLogs(path, { ...base, ...opts }, (b) => out.push(b));
  return Buffer.concat(out).toString();
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('the rotated files are read oldest first, then the live one', async () => {
  const d = join(dir, 'rotated');
  mkdirSync(d);
  const path = join(d, '0.log');
  for (const [name, text] of [['0.log.20240102-030401', line(1, 'one')], ['0.log.20240102-030402', line(2, 'two')], ['0.log', line(3, 'three')], ['1.log.20240102-030400', line(0, 'other attempt')], ['0.log.tmp', line(0, 'not a rotation')]]) {
    writeFileSync(join(d, name), text, { flag: 'w' });
  }
  assert.deepEqual(containerLogFiles(path).map((p) => p.slice(d.length + 1)), ['0.log.20240102-030401', '0.log.20240102-030402', '0.log']);
  assert.equal(await read(path), 'one\ntwo\nthree\n');
  // a fragment split by a rotation is still joined
  writeFileSync(join(d, '0.log.20240102-030402'), line(2, 'two') + line(2, 'thr', 'stdout', 'P'));
  writeFileSync(path, line(3, 'ee'));
  assert.equal(await read(path), 'one\ntwo\nthree\n');
});

test('tail, since, timestamps and limitBytes as upstream applies them', async () => {
  const d = join(dir, 'opts');
  mkdirSync(d);
  const path = join(d, '0.log');
  writeFileSync(join(d, '0.log.20240102-030401'), line(1, 'a') + line(2, 'b'), { flag: 'w' });
  writeFileSync(path, line(3, 'c') + line(4, 'd', 'stderr') + line(5, 'e'));
  assert.equal(await read(path, { tailLines: 2 }), 'd\ne\n');
  assert.equal(await read(path, { tailLines: 4 }), 'b\nc\nd\ne\n');
  assert.equal(await read(path, { tailLines: 0 }), '');
  assert.equal(await read(path, { sinceTime: new Date('2024-01-02T03:04:04Z') }), 'd\ne\n');
  assert.equal(await read(path, { tailLines: 3, sinceTime: new Date('2024-01-02T03:04:05Z') }), 'e\n');
  assert.equal(await read(path, { tailLines: 1, timestamps: true }), '2024-01-02T03:04:05.000000001Z e\n');
  assert.equal(await read(path, { limitBytes: 5 }), 'a\nb\nc');
  assert.equal(await read(join(d, 'missing.log')), '');
});

test('follow goes on across a rotation without losing or repeating lines, and ends when the container stops', async () => {
  const d = join(dir, 'follow');
  mkdirSync(d);
  const path = join(d, '0.log');
  writeFileSync(path, line(1, 'before'), { flag: 'w' });
  const chunks: Buffer[] = [];
  const got = () => Buffer.concat(chunks).toString();
  let running = true;
  const gone = new AbortController();
  const done = readContainerLogs(path, { ...base, follow: true }, (b) => chunks.push(b), { stillRunning: () => running, signal: gone.signal, pollMs: 5 });
  await until('the first line', () => got() === 'before\n');
  appendFileSync(path, line(2, 'appended') + line(3, 'half', 'stdout', 'P'));
  await until('the appended line', () => got() === 'before\nappended\n');
  // the rotator renames; the runtime writes a little more to the old file before it reopens
  renameSync(path, `${path}.20240102-030403`);
  appendFileSync(`${path}.20240102-030403`, line(3, ' and half'));
  writeFileSync(path, line(4, 'after rotation'));
  await until('the lines around the rotation', () => got() === 'before\nappended\nhalf and half\nafter rotation\n');
  appendFileSync(path, line(5, 'last words'));
  running = false;
  await done;
  assert.equal(got(), 'before\nappended\nhalf and half\nafter rotation\nlast words\n');
});

test('follow stops when the reader goes away, and at limitBytes', async () => {
  const d = join(dir, 'stop');
  mkdirSync(d);
  const path = join(d, '0.log');
  writeFileSync(path, line(1, 'x'), { flag: 'w' });
  const gone = new AbortController();
  const out: Buffer[] = [];
  const done = readContainerLogs(path, { ...base, follow: true }, (b) => out.push(b), { stillRunning: () => true, signal: gone.signal, pollMs: 5 });
  await until('the line', () => out.length === 1);
  gone.abort();
  await done;
  const limited: Buffer[] = [];
  const live = { stillRunning: () => true, signal: new AbortController().signal, pollMs: 5 };
  const capped = readContainerLogs(path, { ...base, follow: true, limitBytes: 4 }, (b) => limited.push(b), live);
  appendFileSync(path, line(2, 'yyyy'));
  await capped;
  assert.equal(Buffer.concat(limited).toString(), 'x\nyy');
});
