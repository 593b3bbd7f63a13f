import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../machinery/logger.js';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../../testing/requirements.js';
import { NetnsGC, pinnedNamespaces } from './netns-gc.js';

const logger = createLogger('test', {}, () => undefined);
const HOUR_AGO = (Date.now() - 3600_000) / 1000;

/** A namespace directory of bare files (what a detached pin leaves), each an hour old unless named in `young`. */
function netnsDir(names: string[], young: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-netns-'));
  for (const n of [...names, ...young]) writeFileSync(join(dir, n), '');
  for (const n of names) utimesSync(join(dir, n), HOUR_AGO, HOUR_AGO);
  return dir;
}

test('only namespaces no sandbox holds, made before the cut-off and with no process in them, are removed; a failure does not stop the rest', async () => {
  const dir = netnsDir(['cni-held', 'cni-stale', 'cni-broken', 'cni-busy', 'cni-also-stale'], ['cni-creating']);
  const unmounted: string[] = [];
  const gc = new NetnsGC({
    dir, logger, minAgeMs: 0,
    heldPaths: async () => new Set([join(dir, 'cni-held')]),
    // created just now: a sandbox whose creation is in flight (the runtime lists it only once created)
    creatingSince: () => Date.now() - 60_000,
    inUse: (p) => p.endsWith('cni-busy'),
    unmount: async (p) => {
      unmounted.push(p);
      if (p.endsWith('cni-broken')) throw new Error('umount: target is busy');
    },
  });
  const removed = await gc.removeStale();
  assert.deepEqual(removed.map((p) => p.slice(dir.length + 1)).sort(), ['cni-also-stale', 'cni-stale']);
  assert.deepEqual(unmounted.map((p) => p.slice(dir.length + 1)).sort(), ['cni-also-stale', 'cni-broken', 'cni-stale']);
  assert.deepEqual(readdirSync(dir).sort(), ['cni-broken', 'cni-busy', 'cni-creating', 'cni-held']);
  // with no creation in flight the young one still waits out the minimum age; the held set is not even asked for without candidates
  let asked = 0;
  const young = new NetnsGC({ dir, logger, heldPaths: async () => (asked++, new Set()), creatingSince: () => undefined, inUse: () => true, unmount: async () => undefined });
  rmSync(join(dir, 'cni-broken'));
  rmSync(join(dir, 'cni-busy'));
  rmSync(join(dir, 'cni-held'));
  assert.deepEqual(await young.removeStale(), []);
  assert.equal(asked, 0);
  rmSync(dir, { recursive: true, force: true });
});

test('a missing directory has no namespaces', () => {
  assert.deepEqual(pinnedNamespaces(join(tmpdir(), 'skiff-no-such-netns-dir')), []);
});

test('a pinned namespace nothing holds is unmounted and removed; one a process runs in stays', skipUnless(firstMissing(missingRoot(), missingCommand('unshare', ['--version'], 'util-linux'))), async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-netns-'));
  const stale = join(dir, 'cni-stale');
  const busy = join(dir, 'cni-busy');
  writeFileSync(stale, '');
  execFileSync('unshare', [`--net=${stale}`, 'true']);
  // a process that stays in its pinned namespace until told to go
  writeFileSync(busy, '');
  const sleeper = execFileSync('sh', ['-c', `unshare --net=${busy} sleep 60 >/dev/null 2>&1 & echo $!`]).toString().trim();
  const pinned = (path: string) => readFileSync('/proc/self/mountinfo', 'utf8').includes(` ${path} `);
  try {
    for (const deadline = Date.now() + 10_000; !pinned(busy); ) {
      if (Date.now() > deadline) throw new Error(`${busy} was not pinned in 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(pinned(stale));
    const gc = new NetnsGC({ dir, logger, minAgeMs: 0, heldPaths: async () => new Set(), creatingSince: () => undefined });
    assert.deepEqual(await gc.removeStale(), [stale]);
    assert.equal(existsSync(stale), false);
    assert.equal(pinned(stale), false);
    assert.ok(pinned(busy));
  } finally {
    try {
      process.kill(Number(sleeper));
    } catch {
      // gone already
    }
    try {
      execFileSync('umount', ['--lazy', busy]);
    } catch {
      // not pinned
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
