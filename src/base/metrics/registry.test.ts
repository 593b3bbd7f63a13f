import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from './registry.js';

test('renders counters, gauges and histograms in exposition format', async () => {
  const r = new MetricsRegistry();
  const adds = r.counter('workqueue_adds_total', 'Total adds', ['name']);
  adds.inc({ name: 'q' });
  adds.inc({ name: 'q' }, 2);
  r.gauge('workqueue_depth', 'Current depth\nof the queue', ['name']).set({ name: 'q"x' }, 4);
  const h = r.histogram('latency_seconds', 'Latency', [], [0.1, 1]);
  h.observe({}, 0.05);
  h.observe({}, 0.5);
  h.observe({}, 5);
  const text = await r.render();
  assert.equal(
    text,
    [
      '# HELP workqueue_adds_total Total adds',
      '# TYPE workqueue_adds_total counter',
      'workqueue_adds_total{name="q"} 3',
      '',
      '# HELP workqueue_depth Current depth\\nof the queue',
      '# TYPE workqueue_depth gauge',
      'workqueue_depth{name="q\\"x"} 4',
      '',
      '# HELP latency_seconds Latency',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{le="0.1"} 1',
      'latency_seconds_bucket{le="1"} 2',
      'latency_seconds_bucket{le="+Inf"} 3',
      'latency_seconds_sum 5.55',
      'latency_seconds_count 3',
      '',
    ].join('\n'),
  );
  assert.equal(r.contentType, 'text/plain; version=0.0.4; charset=utf-8');
});

test('registering a name twice shares the family; another type, a bad name, an undeclared label or a decrease is rejected', async () => {
  const r = new MetricsRegistry();
  r.counter('a_total', 'x').inc();
  r.counter('a_total', 'x').inc();
  assert.match(await r.render(), /^a_total 2$/m);
  assert.throws(() => r.gauge('a_total', 'x'), TypeError);
  assert.throws(() => r.counter('bad name', 'x'), RangeError);
  assert.throws(() => r.counter('c_total', 'x').inc({}, -1));
  assert.throws(() => r.counter('d_total', 'x', ['verb']).inc({ resource: 'pods' }));
});
