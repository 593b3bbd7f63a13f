import assert from 'node:assert/strict';
import { test } from 'node:test';
import { certificateBoundaries } from './sign-certificate.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const far = Date.parse('2035-01-01T00:00:00Z');
const MIN = 60_000;

test('certificates start five minutes back; a long one ends backdated too, a short one keeps its whole duration after now (upstream)', () => {
  assert.deepEqual(certificateBoundaries(now, 8760 * 60 * MIN, far), { notBefore: now - 5 * MIN, notAfter: now + 8760 * 60 * MIN - 5 * MIN });
  assert.deepEqual(certificateBoundaries(now, 8 * 60 * MIN, far), { notBefore: now - 5 * MIN, notAfter: now + 8 * 60 * MIN - 5 * MIN });
  assert.deepEqual(certificateBoundaries(now, 130_000, far), { notBefore: now - 5 * MIN, notAfter: now + 130_000 });
});

test('never past the CA', () => {
  assert.equal(certificateBoundaries(now, 8760 * 60 * MIN, now + 10 * MIN).notAfter, now + 10 * MIN);
});
