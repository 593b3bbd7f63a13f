import { startTestApiServer, type TestApiServer } from '../src/testing/test-api-server.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- testing`: how long `startTestApiServer()` takes until the
 * server has answered a request (cold: the first in a process, including
 * generating the test certificates; warm: later ones), and the heap one
 * running server holds (several started at once, measured after forced GCs).
 * Anchor: envtest starts etcd plus kube-apiserver, several seconds.
 */
const WARM_RUNS = Number(process.env.BENCH_RUNS ?? 10);
const HELD = Number(process.env.BENCH_SERVERS ?? 5);

async function startedAndServed(): Promise<{ ms: number; api: TestApiServer }> {
  const t0 = performance.now();
  const api = await startTestApiServer();
  await api.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).get('default');
  return { ms: performance.now() - t0, api };
}

/** Full collections (npm run bench starts node with --expose-gc). */
function forcedGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench does)');
  return () => {
    for (let i = 0; i < 3; i++) gc();
  };
}

export async function run(): Promise<void> {
  const gc = forcedGc();
  const cold = await startedAndServed();
  await cold.api.stop();
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const { ms, api } = await startedAndServed();
    warm.push(ms);
    await api.stop();
  }

  gc();
  const before = process.memoryUsage();
  const held: TestApiServer[] = [];
  for (let i = 0; i < HELD; i++) held.push((await startedAndServed()).api);
  gc();
  const after = process.memoryUsage();
  await Promise.all(held.map((api) => api.stop()));

  const perServer = (key: 'heapUsed' | 'rss') => (after[key] - before[key]) / HELD / 2 ** 20;
  const mb = (v: number) => (v >= 0 ? `${fmt(v)} MB` : 'n/a (below GC noise)');
  process.stdout.write('\nskiff/testing: startTestApiServer() until a request is served\n');
  process.stdout.write(`  cold (first in process, incl. certificates)  ${fmt(cold.ms)} ms   (aim < 300 ms)\n`);
  process.stdout.write(`  warm p50 / max over ${WARM_RUNS}                   ${fmt(percentile(warm, 50))} / ${fmt(Math.max(...warm))} ms\n`);
  process.stdout.write(`  heap per running server (${HELD} held, after GC)  ${mb(perServer('heapUsed'))}\n`);
  process.stdout.write(`  RSS per running server                        ${mb(perServer('rss'))}\n`);
  process.stdout.write(`  process RSS with ${HELD} servers                ${fmt(after.rss / 2 ** 20)} MB\n`);
}
