import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from './registry.js';

test('renders counters, gauges and histograms in exposition format', () => {
  const r = new MetricsRegistry();
  const adds = r.counter('workqueue_adds_total', 'Total adds');
  adds.inc({ name: 'q' });
  adds.inc({ name: 'q' }, 2);
  r.gauge('workqueue_depth', 'Current depth').set({ name: 'q"x' }, 4);
  const h = r.histogram('latency_seconds', 'Latency', [0.1, 1]);
  h.observe({}, 0.05);
  h.observe({}, 0.5);
  h.observe({}, 5);
  const text = r.render();
  assert.equal(
    text,
    [
      '# HELP latency_seconds Latency',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{le="0.1"} 1',
      'latency_seconds_bucket{le="1"} 2',
      'latency_seconds_bucket{le="+Inf"} 3',
      'latency_seconds_sum 5.55',
      'latency_seconds_count 3',
      '# HELP workqueue_adds_total Total adds',
      '# TYPE workqueue_adds_total counter',
      'workqueue_adds_total{name="q"} 3',
      '# HELP workqueue_depth Current depth',
      '# TYPE workqueue_depth gauge',
      'workqueue_depth{name="q\\"x"} 4',
      '',
    ].join('\n'),
  );
});

test('registering a name twice returns the same metric; another type is rejected', () => {
  const r = new MetricsRegistry();
  assert.equal(r.counter('a_total', 'x'), r.counter('a_total', 'x'));
  assert.throws(() => r.gauge('a_total', 'x'), TypeError);
  assert.throws(() => r.counter('bad name', 'x'), RangeError);
  assert.throws(() => r.counter('c_total', 'x').inc({}, -1), RangeError);
});
