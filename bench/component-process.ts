import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../test/e2e/harness.js';

/**
 * A skiff component (`skiff scheduler`, `skiff controller-manager`) run as
 * its own process next to a benchmark's API server, so it gets a core of
 * its own and can be profiled with `node --cpu-prof`.
 */
export interface ComponentProcess {
  proc: ChildProcess;
  /** The port of its /healthz and /metrics endpoint, from its start-up log line. */
  healthPort: Promise<number>;
  /** Resolves (with performance.now()) when a log line with this `msg` appears. */
  logged(msg: string): Promise<number>;
  logs(): string;
  stop(): Promise<void>;
}

export interface ComponentOptions {
  command: string;
  args: string[];
  /** Write a V8 CPU profile (.cpuprofile) into this directory on exit. */
  cpuProfileDir?: string;
}

export function startComponent(o: ComponentOptions): ComponentProcess {
  const nodeArgs = o.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', o.cpuProfileDir] : [];
  const proc = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/skiff.js'), o.command, ...o.args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SKIFF_LOG_LEVEL: 'info' },
  });
  let stderr = '';
  const waiters: { msg: string; resolve: (t: number) => void }[] = [];
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.stderr!.on('data', (d: Buffer) => {
    const t = performance.now();
    const chunk = d.toString();
    stderr += chunk;
    for (const line of chunk.split('\n')) {
      for (const w of waiters.filter((x) => line.includes(`"msg":"${x.msg}"`))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(t);
      }
    }
  });
  const logged = (msg: string): Promise<number> =>
    new Promise((resolve, reject) => {
      waiters.push({ msg, resolve });
      void exited.then(() => reject(new Error(`skiff ${o.command} exited before logging "${msg}":\n${stderr.slice(-4000)}`)));
    });
  const healthPort = (async () => {
    await Promise.race([logged('scheduler starting'), logged('controller manager started')]);
    const m = /"healthPort":(\d+)/.exec(stderr);
    if (!m) throw new Error(`no healthPort in the log of skiff ${o.command}`);
    return Number(m[1]);
  })();
  healthPort.catch(() => undefined);
  return {
    proc,
    healthPort,
    logged,
    logs: () => stderr,
    async stop() {
      // SIGTERM lets node write the CPU profile on its way out.
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** One histogram from a Prometheus text exposition: cumulative counts per upper bound. */
export interface HistogramSample {
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
}

/** Sums the series of a histogram whose labels contain `match` (all series if empty). */
export function parseHistogram(text: string, name: string, match = ''): HistogramSample {
  const byLe = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (match && !line.includes(match))) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_bucket`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      const bound = le === '+Inf' ? Infinity : Number(le);
      byLe.set(bound, (byLe.get(bound) ?? 0) + value);
    } else if (line.startsWith(`${name}_count`)) count += value;
    else if (line.startsWith(`${name}_sum`)) sum += value;
  }
  const buckets = [...byLe].map(([le, c]) => ({ le, count: c })).sort((a, b) => a.le - b.le);
  return { buckets, count, sum };
}

/** Like PromQL's histogram_quantile: linear interpolation inside the bucket holding the quantile. */
export function histogramQuantile(h: HistogramSample, q: number): number {
  const total = h.buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return prevLe;
      return prevLe + ((b.le - prevLe) * (rank - prevCount)) / Math.max(1, b.count - prevCount);
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}

/** Sums a counter's series whose labels contain `match`. */
export function parseCounter(text: string, name: string, match = ''): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!(line.startsWith(`${name}{`) || line.startsWith(`${name} `)) || (match && !line.includes(match))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

export async function fetchMetrics(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return res.text();
}
