import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Client, loadKubeconfig } from '../src/client/rest/index.js';
import { removeDir, startServer } from '../test/e2e/harness.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- podstartup [--pods 100] [--rate 10]`: upstream's pod
 * startup SLI on one `skiff server` (API server, scheduler, kubelet with the
 * process runtime): pods are created at a steady rate, and each pod's latency
 * runs from the create request to the watch event that first shows it
 * Running. Scheduling, the kubelet's informer, sandbox and container start,
 * and the status write are all inside the figure; there is no image pull.
 * Beside it: what a bare process spawn costs on this machine, the floor for
 * a runtime whose containers are processes. Prints figures; asserts nothing.
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { pods: { type: 'string', default: '100' }, rate: { type: 'string', default: '10' } } });
  const count = Number(values.pods);
  const rate = Number(values.rate);

  const spawnMs = await bareSpawn(50);
  const server = await startServer({ command: 'server', timeoutMs: 60_000 });
  const client = new Client(loadKubeconfig(server.kubeconfig), { component: 'bench-podstartup', qps: 1000, burst: 1000 });
  const pods = client.resource<Pod>({ group: '', version: 'v1', resource: 'pods' }).namespace('default');
  const abort = new AbortController();
  try {
    // a node must be there before the clock runs
    for (;;) {
      const nodes = await client.resource({ group: '', version: 'v1', resource: 'nodes' }).list();
      if (nodes.items.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const createdAt = new Map<string, number>();
    const latencies = new Map<string, number>();
    const bound = new Map<string, number>();
    let allRunning!: () => void;
    const done = new Promise<void>((r) => (allRunning = r));
    const rv = (await pods.list()).metadata?.resourceVersion;
    const watching = (async () => {
      for await (const ev of pods.watch({ resourceVersion: rv, signal: abort.signal, labelSelector: 'bench=podstartup' })) {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        const name = ev.object.metadata?.name ?? '';
        const t0 = createdAt.get(name);
        if (t0 === undefined) continue;
        if (ev.object.spec?.nodeName && !bound.has(name)) bound.set(name, performance.now() - t0);
        if (latencies.has(name) || ev.object.status?.phase !== 'Running') continue;
        latencies.set(name, performance.now() - t0);
        if (latencies.size === count) allRunning();
      }
    })().catch(() => undefined);

    const started = performance.now();
    for (let i = 0; i < count; i++) {
      // a steady rate: pod i goes out at i/rate seconds, whatever the previous create took
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = `start-${i}`;
      createdAt.set(name, performance.now());
      void pods.create({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name, labels: { bench: 'podstartup' } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] },
      }).catch((err: Error) => process.stderr.write(`create ${name}: ${err.message}\n`));
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 120_000)))]);
    clearTimeout(timer);
    const samples = [...latencies.values()];
    process.stdout.write(`\npod startup latency (created → Running on a watch), ${count} pods at ${rate}/s on one node\n`);
    process.stdout.write(`  pods Running        ${samples.length}/${count}\n`);
    process.stdout.write(`  p50                 ${fmt(percentile(samples, 50))} ms\n`);
    process.stdout.write(`  p90                 ${fmt(percentile(samples, 90))} ms\n`);
    process.stdout.write(`  p99                 ${fmt(percentile(samples, 99))} ms   (aim < 200 ms; upstream SLO 5000 ms)\n`);
    process.stdout.write(`  max                 ${fmt(Math.max(...samples))} ms\n`);
    const toBind = [...bound.values()];
    const onNode = [...latencies].map(([n, l]) => l - (bound.get(n) ?? 0));
    process.stdout.write(`  of which scheduled  ${fmt(percentile(toBind, 50))} ms p50, ${fmt(percentile(toBind, 99))} ms p99 (created → bound)\n`);
    process.stdout.write(`  of which on node    ${fmt(percentile(onNode, 50))} ms p50, ${fmt(percentile(onNode, 99))} ms p99 (bound → Running)\n`);
    process.stdout.write(`  bare process spawn  ${fmt(spawnMs.p50, 2)} ms p50, ${fmt(spawnMs.p99, 2)} ms p99 (spawn → exit of \`true\`)\n`);
    process.stdout.write(`  p50 / spawn         ${fmt(percentile(samples, 50) / spawnMs.p50)}x\n`);
    await pods.deleteCollection({ labelSelector: 'bench=podstartup' }).catch(() => undefined);
    abort.abort();
    await watching;
  } finally {
    abort.abort();
    client.close();
    // skiff server stops its pods on a graceful stop
    await server.stop();
    await removeDir(server.dataDir);
  }
}

/** Spawn → exit of `true`, `n` times in a row. */
async function bareSpawn(n: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const p = spawn('true', [], { stdio: 'ignore' });
      p.once('error', reject);
      p.once('exit', () => resolve());
    });
    samples.push(performance.now() - t0);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}
