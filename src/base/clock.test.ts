import assert from 'node:assert/strict';
import { test } from 'node:test';
import { realClock, rfc3339 } from './clock.js';
import { FakeClock } from './fake-clock.js';

test('fake clock fires timers in time order only when advanced', async () => {
  const clock = new FakeClock('2024-05-01T10:00:00Z');
  const fired: string[] = [];
  clock.setTimeout(() => fired.push('b'), 200);
  clock.setTimeout(() => fired.push('a'), 100);
  const cancelled = clock.setTimeout(() => fired.push('never'), 150);
  clock.clearTimeout(cancelled);
  await clock.advance(99);
  assert.deepEqual(fired, []);
  await clock.advance(101);
  assert.deepEqual(fired, ['a', 'b']);
  assert.equal(rfc3339(clock.now()), '2024-05-01T10:00:00Z');
  assert.equal(clock.now(), Date.parse('2024-05-01T10:00:00.200Z'));
});

test('fake sleep wakes on advance; a loop of sleeps runs within one advance; abort wakes at once', async () => {
  const clock = new FakeClock(0);
  let wakes = 0;
  const ac = new AbortController();
  const loop = (async () => {
    while (!ac.signal.aborted) {
      await clock.sleep(1000, ac.signal);
      if (!ac.signal.aborted) wakes++;
    }
  })();
  await clock.advance(3500);
  assert.equal(wakes, 3);
  ac.abort();
  await loop;
  assert.equal(clock.pendingTimers(), 0, 'the aborted sleep cleared its timer');
});

test('real clock sleeps resolve on abort', async () => {
  const ac = new AbortController();
  const sleeping = realClock.sleep(60_000, ac.signal);
  ac.abort();
  await sleeping;
  assert.ok(Math.abs(realClock.now() - Date.now()) < 1000);
});
