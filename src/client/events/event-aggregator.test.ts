import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMBINED_PREFIX, EventAggregator } from './event-aggregator.js';
import { FakeClock } from '../../base/fake-clock.js';

test('distinct messages keep their own key until maxEvents, then share the combined key', () => {
  const clock = new FakeClock(0);
  const agg = new EventAggregator({ maxEvents: 3, intervalMs: 1000, clock });
  const keys = ['a', 'b', 'c', 'd'].map((m) => agg.aggregate('obj/Reason', `obj/Reason/${m}`, m));
  assert.deepEqual(keys.slice(0, 2), [{ key: 'obj/Reason/a', message: 'a' }, { key: 'obj/Reason/b', message: 'b' }]);
  assert.equal(keys[2].message, `${COMBINED_PREFIX}c`);
  assert.equal(keys[3].key, keys[2].key);
  assert.notEqual(keys[2].key, 'obj/Reason/c');
  // Other objects/reasons are separate groups.
  assert.deepEqual(agg.aggregate('other/Reason', 'other/Reason/x', 'x'), { key: 'other/Reason/x', message: 'x' });
  // After the interval without events the group starts over.
  clock.set(clock.now() + 1001);
  assert.deepEqual(agg.aggregate('obj/Reason', 'obj/Reason/e', 'e'), { key: 'obj/Reason/e', message: 'e' });
});
