import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { emptyDirMemorySize, mountsUnder } from './memory-medium.js';

test('a memory-backed emptyDir is sized as upstream: allocatable, lowered to the pod\'s memory cap, lowered to sizeLimit', () => {
  const pod = (limit?: string): Pod => ({ metadata: { uid: 'u' }, spec: { containers: [{ name: 'c', ...(limit ? { resources: { limits: { memory: limit } } } : {}) }] }, status: {} });
  const vol = (sizeLimit?: string) => ({ name: 'm', emptyDir: { medium: 'Memory', ...(sizeLimit ? { sizeLimit } : {}) } });
  const alloc = { memory: '1Gi' };
  assert.equal(emptyDirMemorySize(vol(), pod(), alloc), 1024 ** 3);
  assert.equal(emptyDirMemorySize(vol(), pod('64Mi'), alloc), 64 * 1024 ** 2);
  assert.equal(emptyDirMemorySize(vol('8Mi'), pod('64Mi'), alloc), 8 * 1024 ** 2);
  assert.equal(emptyDirMemorySize(vol('2Gi'), pod(), alloc), 1024 ** 3);
  assert.equal(emptyDirMemorySize(vol(), pod(), {}), undefined);
});

test('mountsUnder finds the mount points below a directory, deepest first', () => {
  assert.deepEqual(mountsUnder('/proc'), mountsUnder('/proc').filter((m) => m === '/proc' || m.startsWith('/proc/')));
  assert.ok(mountsUnder('/proc').includes('/proc'));
  assert.deepEqual(mountsUnder('/no/such/dir'), []);
});
