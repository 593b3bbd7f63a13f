import { startTestApiServer, type TestApiServer } from '../src/testing/test-api-server.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- testing`: how long `startTestApiServer()` takes until the
 * server has answered a request (cold: the first in a process, reading the
 * test certificates kept in the temp directory; warm: later ones), wall time
 * and the process's CPU time (which a loaded machine inflates far less), and the heap one
 * running server holds (several started at once, measured after forced GCs).
 * Anchor: envtest starts etcd plus kube-apiserver, several seconds.
 */
const WARM_RUNS = Number(process.env.BENCH_RUNS ?? 10);
const HELD = Number(process.env.BENCH_SERVERS ?? 5);

async function startedAndServed(): Promise<{ ms: number; cpuMs: number; api: TestApiServer }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const api = await startTestApiServer();
  await api.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).get('default');
  const cpu = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, api };
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
  const warmCpu: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const { ms, cpuMs, api } = await startedAndServed();
    warm.push(ms);
    warmCpu.push(cpuMs);
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
  process.stdout.write(`  cold (first in process)                       ${fmt(cold.ms)} ms   (aim < 300 ms); CPU ${fmt(cold.cpuMs)} ms\n`);
  process.stdout.write(`  warm p50 / max over ${WARM_RUNS}                   ${fmt(percentile(warm, 50))} / ${fmt(Math.max(...warm))} ms; CPU p50 ${fmt(percentile(warmCpu, 50))} ms\n`);
  process.stdout.write(`  heap per running server (${HELD} held, after GC)  ${mb(perServer('heapUsed'))}\n`);
  process.stdout.write(`  RSS per running server                        ${mb(perServer('rss'))}\n`);
  process.stdout.write(`  process RSS with ${HELD} servers                ${fmt(after.rss / 2 ** 20)} MB\n`);
}
