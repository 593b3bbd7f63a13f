import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from './token-bucket.js';
import { Backoff } from './backoff.js';
import { FakeClock } from '../../base/fake-clock.js';

test('token bucket allows a burst, then refills at qps', () => {
  const clock = new FakeClock(0);
  const b = new TokenBucket({ qps: 5, burst: 10, clock });
  for (let i = 0; i < 10; i++) assert.equal(b.tryAccept(), true);
  assert.equal(b.tryAccept(), false);
  clock.set(clock.now() + 200); // one token at 5 qps
  assert.equal(b.tryAccept(), true);
  assert.equal(b.tryAccept(), false);
  assert.equal(b.reserve(), 200);
  assert.equal(b.reserve(), 400);
  clock.set(clock.now() + 10_000);
  assert.equal(b.reserve(), 0);
});

test('backoff grows exponentially up to max, with jitter, and resets', () => {
  const b = new Backoff({ initial: 800, max: 30_000, random: () => 0 });
  const seq = Array.from({ length: 8 }, () => b.next());
  assert.deepEqual(seq, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  b.reset();
  assert.equal(b.next(), 800);
  const j = new Backoff({ initial: 100, max: 1000, random: () => 0.5 });
  assert.equal(j.next(), 150);
});
