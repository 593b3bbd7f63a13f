import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from './rng.js';

test('the same seed gives the same sequence; values stay in range', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  const xs = Array.from({ length: 100 }, () => a.int(3, 7));
  assert.deepEqual(xs, Array.from({ length: 100 }, () => b.int(3, 7)));
  assert.ok(xs.every((x) => x >= 3 && x <= 7));
  assert.deepEqual(new Set(xs), new Set([3, 4, 5, 6, 7]));
  assert.notDeepEqual(xs, Array.from({ length: 100 }, () => new Rng(43).int(3, 7)));
});
