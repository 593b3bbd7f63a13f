import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { NoSpaceError } from '../errors.js';
import { SpaceGuard } from './space-guard.js';

const path = join(tmpdir(), 'space-guard.db');

test('the quota alarm stays raised until the refused write would fit, so it does not flap just under the quota', () => {
  const guard = new SpaceGuard(path, 1000, 800);
  assert.throws(() => guard.checkPut(300), NoSpaceError);
  assert.match(guard.alarms()[0]!.message, /leaves no room for a write of 300 bytes under the quota of 1000 bytes/);
  guard.sized(790, false);
  assert.equal(guard.alarms().length, 1, 'still no room for 300 bytes');
  assert.throws(() => guard.checkPut(1), NoSpaceError);
  guard.sized(700, false);
  assert.deepEqual(guard.alarms(), []);
  guard.checkPut(300);
});

test('a file grown past the quota (deletes under the alarm) raises the alarm without a refused write', () => {
  const guard = new SpaceGuard(path, 1000, 100);
  guard.sized(1200, true);
  assert.match(guard.alarms()[0]!.message, /database size 1200 bytes exceeds the quota of 1000 bytes/);
  assert.throws(() => guard.checkPut(1), NoSpaceError);
  guard.sized(200, false);
  assert.deepEqual(guard.alarms(), []);
});

test('no quota: never an alarm for size', () => {
  const guard = new SpaceGuard(path, 0, 100);
  guard.sized(1e12, true);
  guard.checkPut(1e9);
  assert.deepEqual(guard.alarms(), []);
});

test('the disk alarm stays raised after a commit of deletes alone, and clears after a commit that added data', () => {
  const guard = new SpaceGuard(path, 0, 100);
  assert.throws(() => { throw guard.diskFull(); }, NoSpaceError);
  assert.throws(() => guard.checkPut(1), /no space left on the device/);
  guard.sized(90, false);
  assert.throws(() => guard.checkPut(1), /no space left on the device/, 'deletes that fit prove no room for a put');
  guard.sized(120, true);
  guard.checkPut(1);
});
