import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerProcess } from '../test/e2e/harness.js';
import { clientFromKubeconfig } from '../test/e2e/raw-client.js';
import { benchNamespace, benchPod } from './bench-pod.js';
import { fmt, percentile, runConcurrent, type Row } from './stats.js';

type Client = ReturnType<typeof clientFromKubeconfig>;

/** One of the two API servers compared: how to start it and who creates the pods. */
export interface ServerSpec {
  name: string;
  /** Flags for `skiff apiserver` (besides its data dir and port). */
  args: string[];
  /** Before the server starts, in its data dir (e.g. write a token file); returns more flags (e.g. naming that file). */
  prepare?(dataDir: string): Promise<string[]>;
  /** After it started, as the admin: make the `bench` namespace's prerequisites; returns the client that creates the pods (default: the admin's). */
  setup?(admin: Client, server: ServerProcess): Promise<Client>;
  /** After the rounds, as the admin: check the server really did what it is compared for; `lastPod` is its newest pod. */
  verify?(admin: Client, server: ServerProcess, lastPod: string): Promise<void>;
}

export interface CompareOptions {
  rounds: number;
  /** Creates per round, one at a time. */
  sequential: number;
  /** Creates per round, 32 clients at once. */
  concurrent: number;
}

interface Side {
  spec: ServerSpec;
  server: ServerProcess;
  admin: Client;
  client: Client;
  seq: number[];
  conc: number[];
  /** Server CPU (user + system) per create, ms, per round. */
  cpu: number[];
  round: number;
}

export interface Comparison {
  /** The figures, B beside A, with B/A ratios; the per-round ratios show the spread. */
  rows: Row[];
  /** Medians of B/A over the rounds. */
  seqRatio: number;
  concRatio: number;
  cpuRatio: number;
  /** Min and max of the per-round B/A ratios of 32-client throughput. */
  concSpread: [number, number];
  /** The 1-minute load average at the start and at the end. */
  load: [number, number];
}

/** The CPU time (user + system) a process has used, ms (from /proc: the server's own figure, whatever else runs). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Pod create throughput of two API servers, A and B, on the same machine in
 * the same run: both run side by side and are driven in turn (A, B, A, B, …),
 * so a noisy neighbour hits both alike. Each round is `sequential` creates
 * one at a time, then `concurrent` creates from 32 clients. The figures are
 * medians over the rounds; the ratio of each round to its neighbour shows
 * the spread. Server CPU per create is read from /proc: on a machine shared
 * with other work it is steadier than throughput.
 */
export async function compareCreates(dir: string, a: ServerSpec, b: ServerSpec, opts: CompareOptions): Promise<Comparison> {
  const load0 = loadavg()[0];
  const start = async (spec: ServerSpec): Promise<Side> => {
    const dataDir = join(dir, spec.name);
    await import('node:fs/promises').then((fs) => fs.mkdir(dataDir, { recursive: true }));
    const more = (await spec.prepare?.(dataDir)) ?? [];
    const server = await startServer({ dataDir, command: 'apiserver', args: ['--compaction-interval', '0', ...spec.args, ...more], timeoutMs: 120_000 });
    const admin = clientFromKubeconfig(server.kubeconfig);
    await benchNamespace(admin, 'bench');
    const client = spec.setup ? await spec.setup(admin, server) : admin;
    return { spec, server, admin, client, seq: [], conc: [], cpu: [], round: 0 };
  };
  const sides: Side[] = [];
  try {
    sides.push(await start(a));
    sides.push(await start(b));
    const round = async (side: Side, measured: boolean) => {
      const r = side.round++;
      const create = async (name: string) => {
        const res = await side.client.request('POST', '/api/v1/namespaces/bench/pods', benchPod(name));
        if (res.status !== 201) throw new Error(`${side.spec.name}: create ${name}: ${res.status} ${res.body}`);
      };
      const pid = side.server.proc.pid!;
      const cpu0 = cpuMs(pid);
      const t0 = performance.now();
      await runConcurrent(opts.sequential, 1, (i) => create(`seq-${r}-${i}`));
      const seqRate = opts.sequential / ((performance.now() - t0) / 1000);
      const t1 = performance.now();
      await runConcurrent(opts.concurrent, 32, (i) => create(`conc-${r}-${i}`));
      const concRate = opts.concurrent / ((performance.now() - t1) / 1000);
      const cpu = (cpuMs(pid) - cpu0) / (opts.sequential + opts.concurrent);
      if (!measured) return;
      side.seq.push(seqRate);
      side.conc.push(concRate);
      side.cpu.push(cpu);
    };
    const [sa, sb] = sides;
    // one unmeasured round each warms up the JIT and the connection pools
    await round(sa, false);
    await round(sb, false);
    for (let i = 0; i < opts.rounds; i++) {
      // alternate which goes first, so neither always follows the other's garbage
      const [first, second] = i % 2 === 0 ? [sa, sb] : [sb, sa];
      await round(first, true);
      await round(second, true);
    }
    for (const s of sides) await s.spec.verify?.(s.admin, s.server, `conc-${s.round - 1}-${opts.concurrent - 1}`);
    const med = (xs: number[]) => percentile(xs, 50);
    const perRound = (f: (s: Side) => number[]) => f(sb).map((x, i) => x / f(sa)[i]);
    const concRatios = perRound((s) => s.conc);
    const each = (xs: number[], digits = 0) => xs.map((x) => fmt(x, digits)).join(' ');
    const rows: Row[] = [
      { figure: `sequential creates/s (median of ${opts.rounds} × ${opts.sequential})`, api: fmt(med(sb.seq), 0), storage: fmt(med(sa.seq), 0), ratio: fmt(med(perRound((s) => s.seq)), 2) },
      { figure: `32-client creates/s (median of ${opts.rounds} × ${opts.concurrent})`, api: fmt(med(sb.conc), 0), storage: fmt(med(sa.conc), 0), ratio: fmt(med(concRatios), 2) },
      { figure: 'server CPU ms per create (median)', api: fmt(med(sb.cpu), 3), storage: fmt(med(sa.cpu), 3), ratio: fmt(med(perRound((s) => s.cpu)), 2) },
      { figure: '  rounds, sequential', api: each(sb.seq), storage: each(sa.seq), ratio: '' },
      { figure: '  rounds, 32-client', api: each(sb.conc), storage: each(sa.conc), ratio: each(concRatios, 2) },
      { figure: '  rounds, CPU ms per create', api: each(sb.cpu, 2), storage: each(sa.cpu, 2), ratio: '' },
    ];
    const load1 = loadavg()[0];
    rows.push({ figure: `load average (1 min) at start / end: ${fmt(load0, 2)} / ${fmt(load1, 2)}`, api: '', storage: '', ratio: '' });
    return {
      rows,
      seqRatio: med(perRound((s) => s.seq)),
      concRatio: med(concRatios),
      cpuRatio: med(perRound((s) => s.cpu)),
      concSpread: [Math.min(...concRatios), Math.max(...concRatios)],
      load: [load0, load1],
    };
  } finally {
    for (const s of sides) {
      s.client.close();
      s.admin.close();
    }
    await Promise.all(sides.map((s) => s.server.stop()));
  }
}
