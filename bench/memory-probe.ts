/**
 * A preload for measuring a running component's memory (not part of any
 * daemon): `NODE_OPTIONS="--expose-gc --import tsx --import ./bench/memory-probe.ts"`
 * in the environment of a benchmark (e.g. `npm run bench -- scale`) gives
 * every skiff process it starts a SIGUSR2 handler that forces two full GCs
 * and appends one JSON line to `$MEMORY_PROBE_OUT` (default
 * ./memory-probe.jsonl): RSS and heap used before and after, heap total,
 * external and ArrayBuffer bytes, in MiB (heap used also in bytes). Live heap is `heapUsed` after the
 * GC; RSS above heapTotal + external is code, stacks and allocator slack.
 * Add `--heapsnapshot-signal=SIGPWR` for a heap snapshot on `kill -PWR`
 * (bench/heap-summary.ts summarizes it).
 */
import { appendFileSync, readFileSync } from 'node:fs';

const MiB = (n: number): number => Math.round(n / 2 ** 20);

/** Node flags that give a process this probe (after tsx, which loads it). */
export const MEMORY_PROBE_NODE_ARGS = ['--expose-gc', '--import', 'tsx', '--import', new URL('./memory-probe.ts', import.meta.url).pathname];

/**
 * Signals a process started with MEMORY_PROBE_NODE_ARGS and waits (up to 10 s) for its row in `out`
 * (its MEMORY_PROBE_OUT): heap used in bytes after its forced full GCs.
 */
export async function probedHeapUsed(pid: number, out: string): Promise<number> {
  const rows = () => { try { return readFileSync(out, 'utf8').split('\n').filter(Boolean).length; } catch { return 0; } };
  const seen = rows();
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (rows() <= seen) {
    if (Date.now() > deadline) throw new Error(`process ${pid} wrote no memory probe row to ${out} in 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const row = JSON.parse(readFileSync(out, 'utf8').split('\n').filter(Boolean)[seen]!) as { heapUsedBytes: number; forcedGc: boolean };
  if (!row.forcedGc) throw new Error(`process ${pid} has no gc() (start it with --expose-gc)`);
  return row.heapUsedBytes;
}

// only where loaded as a preload into a daemon (not when a bench imports the helpers above)
if (process.argv[1]?.endsWith('skiff.js')) process.on('SIGUSR2', () => {
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
    heapUsedBytes: after.heapUsed,
    heapTotal: MiB(after.heapTotal),
    external: MiB(after.external),
    arrayBuffers: MiB(after.arrayBuffers),
  };
  appendFileSync(process.env.MEMORY_PROBE_OUT ?? 'memory-probe.jsonl', `${JSON.stringify(row)}\n`);
});
