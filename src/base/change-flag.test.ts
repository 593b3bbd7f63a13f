import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeFlag } from './change-flag.js';
import { FakeClock } from './fake-clock.js';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

test('starts marked; a taken flag waits until marked again', async () => {
  const clock = new FakeClock(0);
  const flag = new ChangeFlag(clock);
  const signal = new AbortController().signal;
  assert.equal(await settled(flag.wait(1000, signal)), true);
  flag.take();
  assert.equal(flag.pending, false);
  const waiting = flag.wait(1000, signal);
  assert.equal(await settled(waiting), false);
  flag.mark();
  assert.equal(await settled(waiting), true);
  assert.equal(flag.pending, true);
  assert.equal(clock.pendingTimers(), 0, 'the resync timer is cleared once woken');
});

test('the resync period ends a wait without a change; abort ends it at once', async () => {
  const clock = new FakeClock(0);
  const flag = new ChangeFlag(clock);
  flag.take();
  const ac = new AbortController();
  const resync = flag.wait(1000, ac.signal);
  await clock.advance(999);
  assert.equal(await settled(resync), false);
  await clock.advance(1);
  assert.equal(await settled(resync), true);
  assert.equal(flag.pending, false, 'a resync is not a change');

  const aborted = flag.wait(1000, ac.signal);
  ac.abort();
  assert.equal(await settled(aborted), true);
  assert.equal(clock.pendingTimers(), 0);
  assert.equal(await settled(flag.wait(1000, ac.signal)), true, 'an aborted signal never waits');
});

test('a change during a sync marks the flag again, so the next wait returns at once', async () => {
  const flag = new ChangeFlag(new FakeClock(0));
  flag.take();
  flag.mark(); // while syncing
  assert.equal(await settled(flag.wait(1000, new AbortController().signal)), true);
});
