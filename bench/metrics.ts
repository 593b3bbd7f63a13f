import { Registry, Counter as PromCounter, Histogram as PromHistogram } from 'prom-client';
import { MetricsRegistry } from '../src/machinery/metrics/registry.js';
import { fmt } from './stats.js';

/**
 * `npm run bench -- metrics`: skiff's own metrics registry against
 * prom-client on the hot paths a component has: counter increments and
 * histogram observations with labels (the API server does both per request),
 * and rendering /metrics with many series. Operations per second, best of 5.
 */
const OPS = Number(process.env.BENCH_OPS ?? 1_000_000);
const SERIES = Number(process.env.BENCH_SERIES ?? 2_000);
const VERBS = ['GET', 'LIST', 'WATCH', 'CREATE', 'UPDATE', 'PATCH', 'DELETE'];
const RESOURCES = ['pods', 'nodes', 'leases', 'configmaps', 'events', 'deployments'];
const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

function best(fn: () => void, runs = 5): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

function labelsAt(i: number): { verb: string; resource: string; code: string } {
  return { verb: VERBS[i % VERBS.length]!, resource: RESOURCES[i % RESOURCES.length]!, code: i % 13 === 0 ? '409' : '200' };
}

export async function run(): Promise<void> {
  const ours = new MetricsRegistry();
  const oc = ours.counter('apiserver_request_total', 'requests');
  const oh = ours.histogram('apiserver_request_duration_seconds', 'latency', BUCKETS);
  const prom = new Registry();
  const pc = new PromCounter({ name: 'apiserver_request_total', help: 'requests', labelNames: ['verb', 'resource', 'code'], registers: [prom] });
  const ph = new PromHistogram({ name: 'apiserver_request_duration_seconds', help: 'latency', labelNames: ['verb', 'resource', 'code'], buckets: BUCKETS, registers: [prom] });
  const labels = Array.from({ length: 64 }, (_, i) => labelsAt(i));

  const counterOurs = best(() => {
    for (let i = 0; i < OPS; i++) oc.inc(labels[i & 63]);
  });
  const counterProm = best(() => {
    for (let i = 0; i < OPS; i++) pc.inc(labels[i & 63]!);
  });
  const histOurs = best(() => {
    for (let i = 0; i < OPS; i++) oh.observe(labels[i & 63]!, (i % 1000) / 100);
  });
  const histProm = best(() => {
    for (let i = 0; i < OPS; i++) ph.observe(labels[i & 63]!, (i % 1000) / 100);
  });

  // many series, as a busy API server has (verb × resource × code × scope)
  const many = Array.from({ length: SERIES }, (_, i) => ({ ...labelsAt(i), scope: `s${i}` }));
  const ours2 = new MetricsRegistry();
  const prom2 = new Registry();
  const oc2 = ours2.counter('c_total', 'c');
  const oh2 = ours2.histogram('h_seconds', 'h', BUCKETS);
  const pc2 = new PromCounter({ name: 'c_total', help: 'c', labelNames: ['verb', 'resource', 'code', 'scope'], registers: [prom2] });
  const ph2 = new PromHistogram({ name: 'h_seconds', help: 'h', labelNames: ['verb', 'resource', 'code', 'scope'], buckets: BUCKETS, registers: [prom2] });
  for (const l of many) {
    oc2.inc(l);
    oh2.observe(l, 0.3);
    pc2.inc(l);
    ph2.observe(l, 0.3);
  }
  let oursText = '';
  let promText = '';
  const renderOurs = best(() => {
    oursText = ours2.render();
  });
  let renderProm = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    promText = await prom2.metrics();
    renderProm = Math.min(renderProm, performance.now() - t0);
  }

  const perSec = (ms: number) => `${fmt(OPS / (ms / 1000) / 1e6)} M/s`;
  process.stdout.write(`\nmetrics: skiff's registry vs prom-client ${'(best of 5)'}\n`);
  process.stdout.write(`  counter.inc, 3 labels          ours ${perSec(counterOurs)}   prom-client ${perSec(counterProm)}   ratio ${fmt(counterProm / counterOurs)}x\n`);
  process.stdout.write(`  histogram.observe, 23 buckets  ours ${perSec(histOurs)}   prom-client ${perSec(histProm)}   ratio ${fmt(histProm / histOurs)}x\n`);
  process.stdout.write(`  render ${SERIES} counter + ${SERIES} histogram series  ours ${fmt(renderOurs)} ms (${fmt(oursText.length / 1024)} KiB)   prom-client ${fmt(renderProm)} ms (${fmt(promText.length / 1024)} KiB)   ratio ${fmt(renderProm / renderOurs)}x\n`);
}
