import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RestartBackoff } from './restart-backoff.js';
import { FakeClock } from '../../base/fake-clock.js';

test('first restart is immediate, then 10s doubling to the 5 min cap, reset after a long run', () => {
  const clock = new FakeClock(0);
  const b = new RestartBackoff(10_000, 300_000, 600_000, clock);
  assert.equal(b.next(new Date(0), 100), 0);
  assert.equal(b.next(new Date(1000), 100), 10_000 + 1000);
  clock.set(11_000);
  assert.equal(b.next(new Date(1000), 100), 0);
  assert.equal(b.current, 20_000);
  for (let i = 0; i < 10; i++) {
    const finished = clock.now();
    const wait = b.next(new Date(finished), 100);
    clock.set(clock.now() + wait);
    b.next(new Date(finished), 100);
  }
  assert.equal(b.current, 300_000);
  assert.equal(b.next(new Date(clock.now()), 600_000), 0);
  assert.equal(b.current, 10_000);
});
