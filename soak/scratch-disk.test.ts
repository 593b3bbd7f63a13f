import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { firstMissing, missingCommand, missingRoot, skipUnless } from '../src/testing/requirements.js';
import { diskFaultUnsupported, ScratchDisk } from './scratch-disk.js';

test('the disk-full fault says why it is disabled when not root', () => {
  assert.match(diskFaultUnsupported('/nonexistent', 1000)!, /^not root/);
});

test('a scratch disk fills to ENOSPC, gets its space back, and unmounts', skipUnless(firstMissing(missingRoot(), missingCommand('mount', ['--version']))), () => {
  const dir = mkdtempSync(join(tmpdir(), 'soak-disk-'));
  try {
    assert.equal(diskFaultUnsupported(dir), undefined);
    const disk = ScratchDisk.mount(join(dir, 'd'), 4);
    try {
      writeFileSync(join(disk.mountPoint, 'data'), 'kept');
      assert.ok(disk.freeBytes() > 3 * 1024 * 1024);
      const written = disk.fill();
      assert.ok(written > 3 * 1024 * 1024, `wrote ${written}`);
      assert.ok(disk.freeBytes() < 64 * 1024, `still free: ${disk.freeBytes()}`);
      assert.throws(() => writeFileSync(join(disk.mountPoint, 'more'), Buffer.alloc(256 * 1024)), /ENOSPC/);
      disk.free();
      assert.ok(disk.freeBytes() > 3 * 1024 * 1024);
      assert.equal(readFileSync(join(disk.mountPoint, 'data'), 'utf8'), 'kept');
    } finally {
      disk.unmount();
    }
    assert.equal(existsSync(join(dir, 'd')), false, 'mount point removed after unmounting');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
