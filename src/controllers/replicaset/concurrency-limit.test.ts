import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concurrencyLimit } from './concurrency-limit.js';

test('concurrencyLimit never runs more than the limit at once and runs every call', async () => {
  const limit = concurrencyLimit(3);
  let running = 0;
  let peak = 0;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      limit(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
        return i;
      }),
    ),
  );
  assert.equal(peak, 3);
  assert.deepEqual(results, Array.from({ length: 20 }, (_, i) => i));
});

test('concurrencyLimit frees the slot of a call that fails', async () => {
  const limit = concurrencyLimit(1);
  await assert.rejects(limit(() => Promise.reject(new RangeError('boom'))), RangeError);
  assert.equal(await limit(() => Promise.resolve('next')), 'next');
});
