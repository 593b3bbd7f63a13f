import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CidrError, CidrRangeFullError, CidrSet } from './cidr-set.js';

test('subnets are handed out in order, never twice, continuing after a release', () => {
  const set = new CidrSet('10.42.0.0/16', 24);
  assert.equal(set.free, 256);
  assert.ok(set.occupy('10.42.1.0/24'));
  assert.equal(set.allocateNext(), '10.42.0.0/24');
  assert.equal(set.allocateNext(), '10.42.2.0/24');
  set.release('10.42.0.0/24');
  assert.equal(set.allocateNext(), '10.42.3.0/24', 'a released subnet is not reused at once');
  assert.equal(set.isOccupied('10.42.0.0/24'), false);
  assert.equal(set.occupy('10.43.0.0/24'), false, 'outside the cluster CIDR');
  assert.equal(set.occupy('10.42.0.0/25'), false, 'wrong size');
});

test('a full range says so; bad sizes and CIDRs are refused', () => {
  const set = new CidrSet('10.0.0.0/30', 31);
  assert.equal(set.allocateNext(), '10.0.0.0/31');
  assert.equal(set.allocateNext(), '10.0.0.2/31');
  assert.throws(() => set.allocateNext(), CidrRangeFullError);
  set.release('10.0.0.2/31');
  assert.equal(set.allocateNext(), '10.0.0.2/31');
  assert.throws(() => new CidrSet('10.42.0.0/16', 8), CidrError);
  assert.throws(() => new CidrSet('10.42.0.0/8', 30), /more than 16 bits/);
  assert.throws(() => new CidrSet('10.420.0.0/16', 24), /invalid IPv4 address/);
  assert.equal(new CidrSet('10.42.7.9/16', 24).allocateNext(), '10.42.0.0/24', 'host bits are masked off');
});
