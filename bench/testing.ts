import { loadavg } from 'node:os';
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
const HELD = Number(process.env.BENCH_SERVERS ?? 10);

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
  const mem = () => {
    gc();
    const m = process.memoryUsage();
    // objects in the in-memory storage and TLS buffers live outside the JS heap
    return { js: m.heapUsed + m.external, rss: m.rss };
  };
  const load = loadAverage();
  const m0 = mem();
  const cold = await startedAndServed();
  const m1 = mem();
  await cold.api.stop();
  const warm: number[] = [];
  const warmCpu: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const { ms, cpuMs, api } = await startedAndServed();
    warm.push(ms);
    warmCpu.push(cpuMs);
    await api.stop();
  }

  const before = mem();
  const held: TestApiServer[] = [];
  for (let i = 0; i < HELD; i++) held.push((await startedAndServed()).api);
  const after = mem();
  await Promise.all(held.map((api) => api.stop()));

  const mb = (bytes: number) => `${fmt(bytes / 2 ** 20)} MB`;
  // a difference smaller than what a forced GC leaves behind is not a measurement
  const amount = (d: number, n = 1) => (d > 0 ? mb(d / n) : `below GC noise (${mb(d / n)})`);
  process.stdout.write('\nskiff/testing: startTestApiServer() until a request is served\n');
  process.stdout.write(`  load average while measuring                  ${load} (2 cores; wall time waits for CPU, CPU time does not)\n`);
  process.stdout.write(`  cold (first in process)                       ${fmt(cold.ms)} ms   (aim < 300 ms); CPU ${fmt(cold.cpuMs)} ms\n`);
  process.stdout.write(`  warm p50 / max over ${WARM_RUNS}                   ${fmt(percentile(warm, 50))} / ${fmt(Math.max(...warm))} ms; CPU p50 ${fmt(percentile(warmCpu, 50))} ms\n`);
  process.stdout.write(`  first server, held (heap + external, incl. code it loads)  ${amount(m1.js - m0.js)}; RSS ${amount(m1.rss - m0.rss)}\n`);
  process.stdout.write(`  each further server (${HELD} held, heap + external) ${amount(after.js - before.js, HELD)}; RSS ${amount(after.rss - before.rss, HELD)}\n`);
  process.stdout.write(`  process RSS with ${HELD} servers                ${mb(after.rss)}\n`);
  process.stdout.write('  anchor: envtest starts an etcd and a kube-apiserver process: several seconds\n');
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}
