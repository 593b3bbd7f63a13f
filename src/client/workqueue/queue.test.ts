import { FakeClock } from '../../base/fake-clock.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Queue } from './queue.js';
import { DelayingQueue } from './delaying-queue.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.js';
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import { MaxOfRateLimiter, defaultControllerRateLimiter } from './rate-limiter.js';
import { QueueMetrics } from './queue-metrics.js';
import { MetricsRegistry } from '../../base/metrics/registry.js';
import { waitFor } from '../testing/wait-for.js';

test('dedups, never hands a processing item out twice, defers re-adds until done', async () => {
  const q = new Queue<string>();
  q.add('a');
  q.add('a');
  q.add('b');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  q.add('a'); // while processing: deferred
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'b');
  let second: string | undefined = 'unset';
  const pending = q.get().then((v) => (second = v));
  await new Promise((r) => setImmediate(r));
  assert.equal(second, 'unset', 'a is still being processed');
  q.done('a');
  await pending;
  assert.equal(second, 'a');
  q.done('a');
  q.done('b');
  assert.equal(q.len(), 0);
});

test('shutDown wakes getters; queued items are still handed out; drain waits for done', async () => {
  const q = new Queue<string>();
  const idle = q.get();
  q.shutDown();
  assert.equal(await idle, undefined);
  const q2 = new Queue<string>();
  q2.add('x');
  q2.add('y');
  assert.equal(await q2.get(), 'x');
  let drained = false;
  const drain = q2.shutDownWithDrain().then(() => (drained = true));
  q2.add('z'); // ignored after shutdown
  assert.equal(await q2.get(), 'y');
  assert.equal(await q2.get(), undefined);
  q2.done('x');
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false);
  q2.done('y');
  await drain;
  const ac = new AbortController();
  const aborted = new Queue<string>().get(ac.signal);
  ac.abort();
  assert.equal(await aborted, undefined);
});

test('addAfter delivers later; earlier deadline wins; shutdown cancels', async () => {
  const clock = new FakeClock();
  const q = new DelayingQueue<string>({ clock });
  q.addAfter('a', 10_000);
  q.addAfter('a', 20);
  assert.equal(q.len(), 0);
  assert.equal(q.pendingDelayed(), 1);
  await clock.advance(19);
  assert.equal(q.len(), 0, 'not before its delay');
  await clock.advance(1);
  assert.equal(q.len(), 1, 'the earlier deadline won');
  assert.equal(await q.get(), 'a');
  assert.equal(clock.pendingTimers(), 0, 'the later timer was cancelled');
  q.addAfter('b', 0);
  assert.equal(q.len(), 1);
  q.addAfter('c', 10_000);
  q.shutDown();
  assert.equal(q.pendingDelayed(), 0);
});

test('rate limiters: per-item exponential, bucket, max-of, default', () => {
  const exp = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  assert.deepEqual([exp.when('a'), exp.when('a'), exp.when('a'), exp.when('b')], [5, 10, 20, 5]);
  assert.equal(exp.numRequeues('a'), 3);
  exp.forget('a');
  assert.equal(exp.when('a'), 5);
  for (let i = 0; i < 40; i++) exp.when('c');
  assert.equal(exp.when('c'), 1_000_000);

  const clock = new FakeClock(0);
  const bucket = new BucketRateLimiter<string>(10, 2, clock);
  assert.deepEqual([bucket.when('x'), bucket.when('y'), bucket.when('z')], [0, 0, 100]);
  const max = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter<string>(1, 10), new BucketRateLimiter<string>(10, 1, clock));
  clock.set(1000);
  assert.equal(max.when('i'), 1);
  assert.equal(max.when('i'), 100);
  const def = defaultControllerRateLimiter<string>();
  assert.equal(def.when('k'), 5);
  assert.equal(def.when('k'), 10);
  assert.equal(def.numRequeues('k'), 2);
});

test('rate-limiting queue retries with backoff and records metrics', async () => {
  const registry = new MetricsRegistry();
  const q = new RateLimitingQueue<string>({
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000),
    metrics: new QueueMetrics('test', registry),
  });
  q.add('k');
  const k = await q.get();
  assert.equal(k, 'k');
  q.addRateLimited('k');
  q.done('k');
  assert.equal(q.numRequeues('k'), 1);
  await waitFor(() => q.len() === 1, 'retry to become ready');
  assert.equal(await q.get(), 'k');
  q.forget('k');
  q.done('k');
  assert.equal(q.numRequeues('k'), 0);
  const text = await registry.render();
  assert.match(text, /workqueue_adds_total\{name="test"\} 2/);
  assert.match(text, /workqueue_retries_total\{name="test"\} 1/);
  assert.match(text, /workqueue_depth\{name="test"\} 0/);
  assert.match(text, /workqueue_work_duration_seconds_count\{name="test"\} 2/);
  assert.match(text, /workqueue_queue_duration_seconds_count\{name="test"\} 2/);
  q.shutDown();
});
