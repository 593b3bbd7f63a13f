import { join } from 'node:path';
import { startServer, type ServerProcess } from '../test/e2e/harness.js';
import { clientFromKubeconfig } from '../test/e2e/raw-client.js';
import { fmt, percentile, printTable, runConcurrent, type Row } from './stats.js';
import { benchPod } from './bench-pod.js';

const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 6);
const N_SEQ = Number(process.env.BENCH_TRACING_SEQ ?? 300);
const N_CONC = Number(process.env.BENCH_TRACING_CONC ?? 1500);

interface Side {
  server: ServerProcess;
  client: ReturnType<typeof clientFromKubeconfig>;
  seq: number[];
  conc: number[];
  round: number;
}

/**
 * Create throughput with tracing on (as skiff ships: every write without a
 * caller's `traceparent` starts a recorded trace with its stage spans, its
 * storage span and its write cause) against tracing off (`--tracing=false`),
 * on the same machine in the same run. Both servers run side by side and are
 * driven in turn (off, on, off, on, …), so a noisy neighbour hits both alike;
 * the figures are the medians over the rounds.
 */
export async function tracingOverhead(dir: string): Promise<{ rows: Row[]; concRatio: number; seqRatio: number }> {
  const start = async (name: string, args: string[]): Promise<Side> => {
    const server = await startServer({ dataDir: join(dir, name), command: 'apiserver', args: ['--compaction-interval', '0', ...args], timeoutMs: 120_000 });
    const client = clientFromKubeconfig(server.kubeconfig);
    const r = await client.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    if (r.status !== 201) throw new Error(`create namespace on ${name}: ${r.status} ${r.body}`);
    return { server, client, seq: [], conc: [], round: 0 };
  };
  const off = await start('tracing-off', ['--tracing=false']);
  let on: Side | undefined;
  try {
    on = await start('tracing-on', ['--tracing=true']);
    const round = async (side: Side, measured: boolean) => {
      const r = side.round++;
      const create = async (name: string) => {
        const res = await side.client.request('POST', '/api/v1/namespaces/bench/pods', benchPod(name));
        if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body}`);
      };
      const t0 = performance.now();
      await runConcurrent(N_SEQ, 1, (i) => create(`seq-${r}-${i}`));
      const seqRate = N_SEQ / ((performance.now() - t0) / 1000);
      const t1 = performance.now();
      await runConcurrent(N_CONC, 32, (i) => create(`conc-${r}-${i}`));
      const concRate = N_CONC / ((performance.now() - t1) / 1000);
      if (!measured) return;
      side.seq.push(seqRate);
      side.conc.push(concRate);
    };
    // one unmeasured round each warms up the JIT and the connection pools
    await round(off, false);
    await round(on, false);
    for (let i = 0; i < ROUNDS; i++) {
      await round(off, true);
      await round(on, true);
    }
    await assertTraced(on);
    const seqOff = percentile(off.seq, 50);
    const seqOn = percentile(on.seq, 50);
    const concOff = percentile(off.conc, 50);
    const concOn = percentile(on.conc, 50);
    const each = (xs: number[]) => xs.map((x) => fmt(x, 0)).join(' ');
    const rows: Row[] = [
      { figure: `sequential creates/s (median of ${ROUNDS} × ${N_SEQ})`, api: fmt(seqOn, 0), storage: fmt(seqOff, 0), ratio: fmt(seqOn / seqOff, 2) },
      { figure: `32-client creates/s (median of ${ROUNDS} × ${N_CONC})`, api: fmt(concOn, 0), storage: fmt(concOff, 0), ratio: fmt(concOn / concOff, 2) },
      { figure: '  rounds, sequential (on | off)', api: each(on.seq), storage: each(off.seq), ratio: '' },
      { figure: '  rounds, 32-client (on | off)', api: each(on.conc), storage: each(off.conc), ratio: '' },
    ];
    return { rows, seqRatio: seqOn / seqOff, concRatio: concOn / concOff };
  } finally {
    off.client.close();
    on?.client.close();
    await Promise.all([off.server.stop(), on?.server.stop()]);
  }
}

/** The tracing-on figure must be of a server that really recorded: one of its creates has a trace. */
async function assertTraced(side: Side): Promise<void> {
  const name = `conc-${side.round - 1}-${N_CONC - 1}`;
  const r = await side.client.request('GET', `/apis/trace.skiff.dev/v1/namespaces/bench/pods/${name}`);
  const traces = r.status === 200 ? (JSON.parse(r.body) as { traces: unknown[] }).traces.length : 0;
  if (traces === 0) throw new Error(`the tracing-on server recorded no trace for pod ${name}: ${r.status} ${r.body.slice(0, 300)}`);
}

/** `npm run bench -- apiserver tracing`: only this comparison. */
export async function printTracingOverhead(dir: string): Promise<void> {
  const t = await tracingOverhead(dir);
  printTable('skiff API server: tracing on vs off (interleaved rounds, same machine, same run)', t.rows, { figure: 'figure', api: 'tracing on', storage: 'tracing off', ratio: 'on/off' });
  process.stdout.write(
    `\ntarget: create throughput with tracing on within 10% of tracing off (sequential ${fmt(100 * (t.seqRatio - 1), 1)}%, 32 clients ${fmt(100 * (t.concRatio - 1), 1)}%)\n`,
  );
}
