import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diskFullViolations } from './disk-probe.js';

const seen = { acknowledged: 3, refusedForSpace: 1, other: [] as number[], notReady: true, exits: 0 };

test('a full disk under SQLite: refusals with a 5xx and /readyz false are as expected', () => {
  assert.deepEqual(diskFullViolations('apiserver', seen), []);
  // WAL slack absorbed every write: nothing refused, nothing to say
  assert.deepEqual(diskFullViolations('apiserver', { ...seen, refusedForSpace: 0, notReady: undefined }), []);
  // timeouts, resets and 5xx other than NOSPACE may happen on a loaded machine
  assert.deepEqual(diskFullViolations('apiserver', { ...seen, other: [0, 503, 504, 429] }), []);
});

test('a crash, a 4xx or /readyz ok while writes are refused are violations', () => {
  assert.match(diskFullViolations('apiserver', { ...seen, exits: 1 }).join(), /exited 1 time/);
  assert.match(diskFullViolations('apiserver', { ...seen, other: [422] }).join(), /answered 422 instead of a 5xx Status/);
  assert.match(diskFullViolations('apiserver', { ...seen, notReady: false }).join(), /readyz answered ok/);
});

test('an etcd member dying of a full disk is etcd behaviour, not a violation', () => {
  assert.deepEqual(diskFullViolations('etcd', { ...seen, exits: 3, notReady: false }), []);
});
