import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { missingCommand, skipUnless } from '../../testing/requirements.js';
import { dockerArchive } from './busybox-image.js';
import { writeTar } from './tar-writer.js';

test('writeTar writes files, directories and symlinks that tar reads back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-tar-'));
  try {
    const long = `${'d'.repeat(90)}/${'f'.repeat(60)}`;
    writeFileSync(join(dir, 'a.tar'), writeTar([
      { type: 'dir', path: 'bin' },
      { type: 'file', path: 'bin/tool', data: Buffer.from('#!/bin/sh\n'), mode: 0o755 },
      { type: 'symlink', path: 'bin/alias', target: 'tool' },
      { type: 'file', path: long, data: Buffer.from('x') },
    ]));
    const listing = execFileSync('tar', ['tvf', join(dir, 'a.tar')], { encoding: 'utf8' });
    assert.match(listing, /^-rwxr-xr-x 0\/0 +10 .* bin\/tool$/m);
    assert.match(listing, /bin\/alias -> tool$/m);
    assert.ok(listing.includes(long));
    execFileSync('tar', ['xf', join(dir, 'a.tar'), '-C', dir]);
    assert.equal(readFileSync(join(dir, 'bin/alias'), 'utf8'), '#!/bin/sh\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a docker archive names its config and layer as docker save does', skipUnless(missingCommand('tar')), () => {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-img-'));
  try {
    const layer = writeTar([{ type: 'file', path: 'hello', data: Buffer.from('hi') }]);
    writeFileSync(join(dir, 'img.tar'), dockerArchive(layer, { tags: ['example.test/hello:1'], entrypoint: ['/hello'], user: '1000' }));
    execFileSync('tar', ['xf', join(dir, 'img.tar'), '-C', dir]);
    const [manifest] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { Config: string; RepoTags: string[]; Layers: string[] }[];
    assert.deepEqual(manifest!.RepoTags, ['example.test/hello:1']);
    const config = JSON.parse(readFileSync(join(dir, manifest!.Config), 'utf8'));
    assert.deepEqual(config.config.Entrypoint, ['/hello']);
    assert.equal(config.config.User, '1000');
    assert.equal(config.rootfs.diff_ids.length, 1);
    assert.deepEqual(readFileSync(join(dir, manifest!.Layers[0]!)), layer);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
