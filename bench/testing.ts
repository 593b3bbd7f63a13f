import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestApiServer, type TestApiServer } from '../src/testing/test-api-server.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- testing`: how long `startTestApiServer()` takes until the
 * server has answered a request, wall time and the process's CPU time (which
 * a loaded machine inflates far less).
 * - cold: each start in a fresh `node --import tsx` process that first
 *   imports `skiff/testing` as a user's test file does (the import is timed
 *   apart); the processes share a new temp directory, so the first of them
 *   also transpiles the sources and makes the test certificates (shown on
 *   its own) and the later ones find both cached, as a developer's second
 *   test run does;
 * - warm: later starts in one process;
 * - the heap one running server holds (several started at once, measured
 *   after forced GCs).
 * Anchors: the 300 ms aim, and envtest, which starts an etcd and a
 * kube-apiserver process (several seconds).
 */
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
const WARM_RUNS = Number(process.env.BENCH_RUNS ?? 10);
const HELD = Number(process.env.BENCH_SERVERS ?? 10);
const AIM_MS = 300;

interface ColdStart {
  bootMs: number;
  importMs: number;
  importCpuMs: number;
  startMs: number;
  startCpuMs: number;
}

/** Fresh processes, one start each, sharing `dir` as their temp directory (tsx's cache, the test certificates). */
async function coldStarts(runs: number): Promise<{ first: ColdStart; later: ColdStart[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-bench-testing-'));
  const child = fileURLToPath(new URL('./testing-cold.ts', import.meta.url));
  const once = async (): Promise<ColdStart> => {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir };
    delete env.SKIFF_TESTING_PKI;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child], { env, cwd: fileURLToPath(new URL('..', import.meta.url)) });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as ColdStart;
  };
  try {
    const first = await once();
    const later: ColdStart[] = [];
    for (let i = 0; i < runs; i++) later.push(await once());
    return { first, later };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

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
  const cold = await coldStarts(COLD_RUNS);
  const m0 = mem();
  const firstInProcess = await startedAndServed();
  const m1 = mem();
  await firstInProcess.api.stop();
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
  const med = (pick: (c: ColdStart) => number) => percentile(cold.later.map(pick), 50);
  const range = (pick: (c: ColdStart) => number) => `${fmt(Math.min(...cold.later.map(pick)))}–${fmt(Math.max(...cold.later.map(pick)))}`;
  const startMedian = med((c) => c.startMs);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out('\nskiff/testing: startTestApiServer() until a request is served');
  out(`  load average while measuring (1/5/15 min)   ${load} at the start, ${loadAverage()} at the end (2 cores; wall time waits for a core, CPU time does not)`);
  out(`  cold: a fresh node --import tsx process each, median [min–max] of ${COLD_RUNS}`);
  out(`    startTestApiServer() → request served     ${fmt(startMedian)} ms [${range((c) => c.startMs)}]; CPU ${fmt(med((c) => c.startCpuMs))} ms   aim < ${AIM_MS} ms: ${fmt(startMedian / AIM_MS, 2)}× the aim`);
  out(`    before it: import 'skiff/testing'          ${fmt(med((c) => c.importMs))} ms [${range((c) => c.importMs)}]; CPU ${fmt(med((c) => c.importCpuMs))} ms (tsx compiled sources cached)`);
  out(`    before that: node + tsx boot               ${fmt(med((c) => c.bootMs))} ms`);
  out(`    all three                                  ${fmt(med((c) => c.bootMs + c.importMs + c.startMs))} ms`);
  out(`  first process on empty caches (tsx transpiles, test certificates made): start ${fmt(cold.first.startMs)} ms (CPU ${fmt(cold.first.startCpuMs)}), import ${fmt(cold.first.importMs)} ms (CPU ${fmt(cold.first.importCpuMs)})`);
  out(`  first start in this bench process           ${fmt(firstInProcess.ms)} ms; CPU ${fmt(firstInProcess.cpuMs)} ms`);
  out(`  warm p50 / max over ${WARM_RUNS}                      ${fmt(percentile(warm, 50))} / ${fmt(Math.max(...warm))} ms; CPU p50 ${fmt(percentile(warmCpu, 50))} ms`);
  out(`  first server, held (heap + external, incl. code it loads)  ${amount(m1.js - m0.js)}; RSS ${amount(m1.rss - m0.rss)}`);
  out(`  each further server (${HELD} held, heap + external) ${amount(after.js - before.js, HELD)}; RSS ${amount(after.rss - before.rss, HELD)}`);
  out(`  process RSS with ${HELD} servers                ${mb(after.rss)}`);
  out('  anchor: envtest starts an etcd and a kube-apiserver process: several seconds');
}

function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}
