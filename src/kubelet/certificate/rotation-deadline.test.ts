import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rotationDeadline } from './rotation-deadline.js';

test('the rotation deadline falls at 70% to 90% of the certificate life, measured from notBefore', () => {
  const from = Date.parse('2025-01-01T00:00:00Z');
  const to = from + 1000 * 3600;
  assert.equal(rotationDeadline(from, to, () => 0), from + 700 * 3600);
  assert.equal(rotationDeadline(from, to, () => 1), from + 900 * 3600);
  assert.equal(rotationDeadline(from, to, () => 0.5), from + 800 * 3600);
  for (let i = 0; i < 100; i++) {
    const d = rotationDeadline(from, to);
    assert.ok(d >= from + 700 * 3600 && d <= from + 900 * 3600, String(d));
  }
});

test('a backdated certificate counts its backdated start, as upstream', () => {
  // upstream's signer: 5 minutes backdated, a 130 s certificate ends 130 s from now
  const now = Date.parse('2025-01-01T00:05:00Z');
  const d = rotationDeadline(now - 300_000, now + 130_000, () => 0);
  assert.equal(d, now - 300_000 + 0.7 * 430_000);
});
