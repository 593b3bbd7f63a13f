import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidDurationError, parseDuration } from './duration.js';

test('parseDuration reads Go durations', () => {
  assert.equal(parseDuration('40s'), 40_000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('-2s'), -2000);
  for (const bad of ['', '40', 's', '1x', '1s2']) assert.throws(() => parseDuration(bad), InvalidDurationError);
});
