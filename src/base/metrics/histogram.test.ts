import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { MetricsRegistry } from './registry.js';

test("a histogram renders exactly as prom-client's own, series by series", async () => {
  const ours = new MetricsRegistry();
  const theirs = new Registry();
  const buckets = [0.001, 0.002, 0.004, 0.008, 0.016];
  const a = ours.histogram('apiserver_request_duration_seconds', 'Latency "by" verb\nand resource.', ['verb', 'resource'], buckets);
  const b = new Histogram({ name: 'apiserver_request_duration_seconds', help: 'Latency "by" verb\nand resource.', labelNames: ['verb', 'resource'], buckets, registers: [theirs] });
  const observations: [Record<string, string>, number][] = [
    [{ verb: 'CREATE', resource: 'pods' }, 0.0005],
    [{ verb: 'CREATE', resource: 'pods' }, 0.003],
    [{ resource: 'pods', verb: 'CREATE' }, 0.016],
    [{ verb: 'UPDATE', resource: 'pods/status' }, 0.5],
    [{ verb: 'GET', resource: 'con"fig\\maps' }, 0.002],
    [{ verb: 'LIST' }, 0.001],
  ];
  for (const [labels, v] of observations) {
    a.observe(labels, v);
    b.observe(labels, v);
  }
  assert.equal(await ours.render(), await theirs.metrics());
  assert.deepEqual((await ours.render()).match(/^\S+_count\{[^}]*\} \d+$/gm), [
    'apiserver_request_duration_seconds_count{verb="CREATE",resource="pods"} 3',
    'apiserver_request_duration_seconds_count{verb="UPDATE",resource="pods/status"} 1',
    'apiserver_request_duration_seconds_count{verb="GET",resource="con\\"fig\\\\maps"} 1',
    'apiserver_request_duration_seconds_count{verb="LIST"} 1',
  ]);
});

test('a histogram refuses an undeclared label, a value that is not a number and the reserved label le', () => {
  const r = new MetricsRegistry();
  const h = r.histogram('x_seconds', 'x', ['verb']);
  assert.throws(() => h.observe({ resource: 'pods' }, 1));
  assert.throws(() => h.observe({ verb: 'GET' }, Number.NaN), TypeError);
  assert.throws(() => r.histogram('y_seconds', 'y', ['le']));
  // the same name again is the same family
  r.histogram('x_seconds', 'x', ['verb']).observe({ verb: 'GET' }, 1);
  h.observe({ verb: 'GET' }, 2);
  return r.render().then((text) => assert.match(text, /^x_seconds_count\{verb="GET"\} 2$/m));
});
