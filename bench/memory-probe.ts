/**
 * A preload for measuring a running component's memory (not part of any
 * daemon): `NODE_OPTIONS="--expose-gc --import tsx --import ./bench/memory-probe.ts"`
 * in the environment of a benchmark (e.g. `npm run bench -- scale`) gives
 * every skiff process it starts a SIGUSR2 handler that forces two full GCs
 * and appends one JSON line to `$MEMORY_PROBE_OUT` (default
 * ./memory-probe.jsonl): RSS and heap used before and after, heap total,
 * external and ArrayBuffer bytes, in MiB. Live heap is `heapUsed` after the
 * GC; RSS above heapTotal + external is code, stacks and allocator slack.
 * Add `--heapsnapshot-signal=SIGPWR` for a heap snapshot on `kill -PWR`
 * (bench/heap-summary.ts summarizes it).
 */
import { appendFileSync } from 'node:fs';

const MiB = (n: number): number => Math.round(n / 2 ** 20);

process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const before = process.memoryUsage();
  gc?.();
  gc?.();
  const after = process.memoryUsage();
  const row = {
    pid: process.pid,
    command: process.argv[2],
    at: new Date().toISOString(),
    forcedGc: gc !== undefined,
    rssBefore: MiB(before.rss),
    heapUsedBefore: MiB(before.heapUsed),
    rss: MiB(after.rss),
    heapUsed: MiB(after.heapUsed),
    heapTotal: MiB(after.heapTotal),
    external: MiB(after.external),
    arrayBuffers: MiB(after.arrayBuffers),
  };
  appendFileSync(process.env.MEMORY_PROBE_OUT ?? 'memory-probe.jsonl', `${JSON.stringify(row)}\n`);
});
