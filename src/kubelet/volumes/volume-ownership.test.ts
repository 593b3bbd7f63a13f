import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setVolumeOwnership } from './volume-ownership.js';

const asRoot = process.getuid?.() === 0;

test('fsGroup: group ownership, group read/write (read only for read-only volumes) and setgid directories', { skip: !asRoot && 'changing a file\'s group to another needs root' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'own-'));
  try {
    mkdirSync(join(dir, 'sub'));
    chmodSync(join(dir, 'sub'), 0o700);
    writeFileSync(join(dir, 'sub', 'f'), 'x', { mode: 0o600 });
    symlinkSync('sub/f', join(dir, 'link'));
    setVolumeOwnership(dir, 4321, false);
    const mode = (p: string) => statSync(join(dir, p)).mode & 0o7777;
    assert.equal(statSync(join(dir, 'sub', 'f')).gid, 4321);
    assert.equal(mode('sub'), 0o2770);
    assert.equal(mode('sub/f'), 0o660);
    setVolumeOwnership(join(dir, 'sub'), 4321, true, 'OnRootMismatch');
    // the root fits already: nothing changes
    assert.equal(mode('sub/f'), 0o660);
    const ro = mkdtempSync(join(tmpdir(), 'own-'));
    writeFileSync(join(ro, 'g'), 'y', { mode: 0o600 });
    setVolumeOwnership(ro, 4321, true);
    assert.equal(statSync(join(ro, 'g')).mode & 0o777, 0o640);
    rmSync(ro, { recursive: true, force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
