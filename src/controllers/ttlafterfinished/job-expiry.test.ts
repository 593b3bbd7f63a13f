import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { jobExpiry } from './ttl-after-finished-reconciler.js';

const finished = (type: string, ttl?: number): Job => ({
  metadata: { name: 'j' },
  spec: { template: {}, ttlSecondsAfterFinished: ttl },
  status: { conditions: [{ type, status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
});

test('a finished Job expires ttlSecondsAfterFinished after its Complete or Failed condition', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(jobExpiry(finished('Complete', 30)), t0 + 30_000);
  assert.equal(jobExpiry(finished('Failed', 0)), t0);
  assert.equal(jobExpiry(finished('Complete')), undefined, 'no TTL: kept');
  assert.equal(jobExpiry(finished('Suspended', 30)), undefined, 'not finished');
  assert.equal(jobExpiry({ ...finished('Complete', 30), metadata: { name: 'j', deletionTimestamp: '2026-01-01T00:00:01Z' } }), undefined);
});
