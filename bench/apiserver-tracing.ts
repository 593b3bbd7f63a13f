import { compareCreates, type Comparison } from './interleaved.js';
import { fmt, printTable } from './stats.js';

const OPTS = {
  rounds: Number(process.env.BENCH_TRACING_ROUNDS ?? 6),
  sequential: Number(process.env.BENCH_TRACING_SEQ ?? 300),
  concurrent: Number(process.env.BENCH_TRACING_CONC ?? 1500),
};

/**
 * Create throughput with tracing on (as skiff ships: every write without a
 * caller's `traceparent` starts a recorded trace with its stage spans, its
 * storage span and its write cause) against tracing off (`--tracing=false`),
 * interleaved on the same machine in the same run (see compareCreates).
 */
export function tracingOverhead(dir: string): Promise<Comparison> {
  return compareCreates(
    dir,
    { name: 'tracing-off', args: ['--tracing=false'] },
    { name: 'tracing-on', args: ['--tracing=true'], verify: assertTraced },
    OPTS,
  );
}

/** The tracing-on figure must be of a server that really recorded: its last create has a trace. */
async function assertTraced(admin: { request(method: string, path: string): Promise<{ status: number; body: string }> }, _server: unknown, pod: string): Promise<void> {
  const r = await admin.request('GET', `/apis/trace.skiff.dev/v1/namespaces/bench/pods/${pod}`);
  const traces = r.status === 200 ? (JSON.parse(r.body) as { traces: unknown[] }).traces.length : 0;
  if (traces === 0) throw new Error(`the tracing-on server recorded no trace for pod ${pod}: ${r.status} ${r.body.slice(0, 300)}`);
}

export function printTracing(t: Comparison): void {
  printTable('skiff API server: tracing on vs off (interleaved rounds, same machine, same run)', t.rows, { figure: 'figure', api: 'tracing on', storage: 'tracing off', ratio: 'on/off' });
}

/** One line: the target and how far the run is from it. */
export function tracingTarget(t: Comparison): string {
  return (
    `tracing on within 10% of off (32 clients ${fmt(100 * (t.concRatio - 1), 1)}% [rounds ${fmt(100 * (t.concSpread[0] - 1), 1)}% … ${fmt(100 * (t.concSpread[1] - 1), 1)}%], ` +
    `sequential ${fmt(100 * (t.seqRatio - 1), 1)}%, server CPU per create ${fmt(100 * (t.cpuRatio - 1), 1)}%)`
  );
}

/** `npm run bench -- apiserver tracing`: only this comparison. */
export async function printTracingOverhead(dir: string): Promise<void> {
  const t = await tracingOverhead(dir);
  printTracing(t);
  process.stdout.write(`\ntarget: ${tracingTarget(t)}\n`);
}
