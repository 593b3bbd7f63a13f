import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../base/fake-clock.js';
import { SchedulingQueue } from './scheduling-queue.js';

const pod = (name: string, priority = 0): Pod => ({ metadata: { name, namespace: 'default', uid: name }, spec: { priority, containers: [] } });

test('activeQ orders by priority then age; failed pods back off and return on relevant events', async () => {
  const clock = new FakeClock(1000);
  const q = new SchedulingQueue({ clock, isRelevant: (plugins, e) => plugins.has('NodeResourcesFit') && e.resource === 'Node' });
  const signal = new AbortController().signal;
  q.add(pod('low', 1));
  await clock.advance(1);
  q.add(pod('high', 10));
  await clock.advance(1);
  q.add(pod('low2', 1));
  const first = (await q.pop(signal))!;
  assert.equal(first.info.key, 'default/high');
  assert.equal((await q.pop(signal))!.info.key, 'default/low');
  first.unschedulablePlugins = new Set(['NodeResourcesFit']);
  q.addUnschedulableIfNotPresent(first, q.schedulingCycle() + 1);
  assert.deepEqual(q.sizes(), { active: 1, backoff: 0, unschedulable: 1 });
  q.moveAllToActiveOrBackoffQueue({ resource: 'PersistentVolume', action: 'Add' });
  assert.equal(q.sizes().unschedulable, 1, 'irrelevant event leaves it parked');
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', action: 'Add' });
  assert.deepEqual(q.sizes(), { active: 1, backoff: 1, unschedulable: 0 }, 'still backing off (1 s)');
  await clock.advance(1000);
  q.flushBackoffQCompleted();
  assert.equal(q.sizes().active, 2);
  assert.equal((await q.pop(signal))!.info.key, 'default/high');
});
