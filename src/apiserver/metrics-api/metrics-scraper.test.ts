import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../base/fake-clock.js';
import { createLogger } from '../../machinery/logger.js';
import { goDuration, MetricsScraper } from './metrics-scraper.js';
import { parsePrometheusText } from './prometheus-text.js';

const node = (name: string): Node => ({ metadata: { name, labels: { zone: 'a' } } });
const pod = (name: string, labels: Record<string, string>): Pod => ({ metadata: { name, namespace: 'ns', labels } });

function kubeletText(at: number, nodeCpu: number, containers: { pod: string; container: string; cpu: number; mem: number; start?: number }[]): string {
  const lines = [
    '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
    '# TYPE node_cpu_usage_seconds_total counter',
    `node_cpu_usage_seconds_total ${nodeCpu} ${at}`,
    `node_memory_working_set_bytes 2.097152e+06 ${at}`,
  ];
  for (const c of containers) {
    const l = `{container="${c.container}",namespace="ns",pod="${c.pod}"}`;
    lines.push(`container_cpu_usage_seconds_total${l} ${c.cpu} ${at}`, `container_memory_working_set_bytes${l} ${c.mem} ${at}`);
    if (c.start !== undefined) lines.push(`container_start_time_seconds${l} ${c.start}`);
  }
  return `${lines.join('\n')}\n`;
}

test('MetricsScraper: CPU is the rate between the last two scrapes, memory the last working set; pods carry their labels', async () => {
  const clock = new FakeClock();
  let replies: (string | Error)[] = [];
  const scraper = new MetricsScraper({
    resolutionMs: 15_000, clock, logger: createLogger('test', {}, () => {}),
    nodes: async () => [node('n1')],
    pods: async () => [pod('web', { app: 'web' }), pod('two', {})],
    fetch: async () => {
      const r = replies.shift()!;
      if (r instanceof Error) throw r;
      return r;
    },
  });
  const t0 = clock.now();
  replies = [kubeletText(t0, 100, [{ pod: 'web', container: 'c', cpu: 10, mem: 1024 }, { pod: 'two', container: 'a', cpu: 1, mem: 1 }, { pod: 'two', container: 'b', cpu: 1, mem: 1 }])];
  await scraper.scrapeOnce(AbortSignal.timeout(5000));
  assert.equal(scraper.snapshot.nodes.length, 0, 'one point gives no rate');
  assert.equal(scraper.snapshot.pods.length, 0);

  await clock.advance(10_000);
  // pod two's container b restarted (a new start time): the pod waits for two points of the new one
  replies = [kubeletText(t0 + 10_000, 115, [{ pod: 'web', container: 'c', cpu: 12.5, mem: 2048 }, { pod: 'two', container: 'a', cpu: 2, mem: 1 }, { pod: 'two', container: 'b', cpu: 0.1, mem: 1 }])];
  await scraper.scrapeOnce(AbortSignal.timeout(5000));
  const [n] = scraper.snapshot.nodes;
  assert.equal(n.metadata.name, 'n1');
  assert.deepEqual(n.metadata.labels, { zone: 'a' });
  assert.deepEqual(n.usage, { cpu: '1500m', memory: '2Mi' });
  assert.equal(n.window, '10s');
  assert.equal(scraper.snapshot.pods.length, 1);
  const [web] = scraper.snapshot.pods;
  assert.equal(web.metadata.name, 'web');
  assert.deepEqual(web.metadata.labels, { app: 'web' });
  assert.deepEqual(web.containers, [{ name: 'c', usage: { cpu: '250m', memory: '2Ki' } }]);

  // a kubelet that fails once keeps its points; the next answer gives rates again
  await clock.advance(10_000);
  replies = [new Error('timeout')];
  await scraper.scrapeOnce(AbortSignal.timeout(5000));
  assert.equal(scraper.snapshot.pods.length, 1);
  await clock.advance(10_000);
  replies = [kubeletText(t0 + 30_000, 125, [{ pod: 'web', container: 'c', cpu: 22.5, mem: 2048 }])];
  await scraper.scrapeOnce(AbortSignal.timeout(5000));
  assert.equal(scraper.snapshot.pods[0].containers[0].usage.cpu, '500m');
  assert.equal(scraper.snapshot.pods[0].window, '20s');
  assert.ok(scraper.snapshot.revision > 1);
});

test('parsePrometheusText: labels with escapes, timestamps, comments and exponents', () => {
  const samples = parsePrometheusText('# HELP x y\nx{a="b\\"c",d="e"} 1.5e+03 1700000000000\ny 2\n\nbad line here\n');
  assert.deepEqual(samples, [
    { name: 'x', labels: { a: 'b"c', d: 'e' }, value: 1500, timestampMs: 1700000000000 },
    { name: 'y', labels: {}, value: 2 },
  ]);
  assert.equal(goDuration(15_002), '15.002s');
  assert.equal(goDuration(60_500), '1m0.5s');
});
