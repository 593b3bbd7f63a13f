import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, chmodSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ContainerConfigError } from '../pod/container-env.js';
import { subPathMounts } from './sub-path.js';

test('subPathExpr expands the container\'s variables and makes the directory with the volume\'s mode; subPath and whole volumes pass through', () => {
  const root = mkdtempSync(join(tmpdir(), 'subpath-'));
  try {
    const vol = join(root, 'data');
    mkdirSync(vol);
    chmodSync(vol, 0o777);
    writeFileSync(join(vol, 'file.conf'), 'x');
    const volumes = new Map([['data', vol]]);
    const mounts = subPathMounts([
      { name: 'data', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)' },
      { name: 'data', mountPath: '/etc/app.conf', subPath: 'file.conf', readOnly: true },
      { name: 'data', mountPath: '/all' },
      { name: 'missing', mountPath: '/x' },
    ], volumes, { POD_NAME: 'web-0' });
    assert.deepEqual(mounts, [
      { containerPath: '/logs', hostPath: join(vol, 'logs/web-0'), readOnly: undefined },
      { containerPath: '/etc/app.conf', hostPath: join(vol, 'file.conf'), readOnly: true },
      { containerPath: '/all', hostPath: vol, readOnly: undefined },
    ]);
    assert.equal(statSync(join(vol, 'logs/web-0')).mode & 0o777, 0o777);
    assert.ok(statSync(join(vol, 'file.conf')).isFile(), 'an existing file is left a file');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an expanded subPath that is absolute or climbs out of the volume is refused', () => {
  const volumes = new Map([['data', tmpdir()]]);
  assert.throws(() => subPathMounts([{ name: 'data', mountPath: '/x', subPathExpr: '$(DIR)' }], volumes, { DIR: '/etc' }), ContainerConfigError);
  assert.throws(() => subPathMounts([{ name: 'data', mountPath: '/x', subPathExpr: 'a/$(DIR)' }], volumes, { DIR: '../..' }), /must not contain '\.\.'/);
});
