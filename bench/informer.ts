import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import * as k8s from '@kubernetes/client-node';
import { startServer, removeDir } from '../test/e2e/harness.js';
import { Client } from '../src/client/rest/client.js';
import { loadKubeconfig } from '../src/client/rest/kubeconfig.js';
import { SharedIndexInformer } from '../src/client/cache/shared-informer.js';
import { listWatcherFor } from '../src/client/cache/list-watcher.js';
import { fmt, percentile, runConcurrent } from './stats.js';

/**
 * `npm run bench -- informer`: with N pods cached (BENCH_OBJECTS, default
 * 10,000), how long from issuing a write until an informer's handler is
 * called, and how much heap the cache needs per 1,000 pods (measured in a
 * child process started with --expose-gc, next to client-node's informer).
 */
const N_OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const N_WRITES = Number(process.env.BENCH_WRITES ?? 1000);
const NS = 'bench';
const PODS = { group: '', version: 'v1', resource: 'pods' };
const RUN_TS = fileURLToPath(new URL('./run.ts', import.meta.url));

/** A realistic pod: ~1.5 KB of JSON before the server's defaults. */
function pod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'bench', 'pod-template-hash': '5d8f7c9b6', tier: 'backend' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/team/app:1.2.3',
          ports: [{ containerPort: 8080, name: 'http' }],
          env: [{ name: 'MODE', value: 'production' }, { name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        },
      ],
    },
  };
}

export async function run(args: string[]): Promise<void> {
  if (args[0] === '--memory-child') return memoryChild(args[1], args[2]);
  const server = await startServer({ command: 'apiserver', args: ['--compaction-interval', '0'] });
  const client = new Client(loadKubeconfig(server.kubeconfig), { component: 'bench', qps: -1 });
  const ac = new AbortController();
  try {
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: NS } });
    const pods = client.resource<Pod>(PODS).namespace(NS);
    let t = performance.now();
    await runConcurrent(N_OBJECTS, 32, async (i) => void (await pods.create(pod(`p-${i}`))));
    out(`created ${N_OBJECTS} pods in ${fmt((performance.now() - t) / 1000, 1)} s`);

    const informer = new SharedIndexInformer<Pod>({ listerWatcher: listWatcherFor(pods) });
    const waiting = new Map<string, (at: number) => void>();
    informer.addEventHandler({
      onUpdate: (_old, obj) => waiting.get(obj.metadata?.name ?? '')?.(performance.now()),
    });
    t = performance.now();
    const running = informer.run(ac.signal);
    await informer.whenSynced(ac.signal);
    out(`informer synced ${informer.indexer.list().length} pods in ${fmt(performance.now() - t, 0)} ms (paged list, 500 per page)`);

    // One write at a time, each waiting for its own notification, so latencies are not queued behind each other.
    const latencies: number[] = [];
    for (let i = 0; i < N_WRITES; i++) {
      const name = `p-${(i * 7919) % N_OBJECTS}`;
      const notified = new Promise<number>((resolve) => waiting.set(name, resolve));
      const start = performance.now();
      await pods.patch(name, { metadata: { labels: { round: String(i) } } }, 'merge');
      latencies.push((await notified) - start);
      waiting.delete(name);
    }
    out(`write → handler (${N_WRITES} merge patches, ${N_OBJECTS} pods cached): p50 ${fmt(percentile(latencies, 50), 2)} ms, p99 ${fmt(percentile(latencies, 99), 2)} ms, max ${fmt(Math.max(...latencies), 2)} ms`);

    // Concurrent writers: notification latency under load.
    const burst: number[] = [];
    const inflight = new Map<string, number>();
    informer.addEventHandler({
      onUpdate: (_old, obj) => {
        const s = inflight.get(obj.metadata?.name ?? '');
        if (s !== undefined) burst.push(performance.now() - s);
      },
    });
    await runConcurrent(N_WRITES, 16, async (i) => {
      const name = `p-${i % N_OBJECTS}`;
      inflight.set(name, performance.now());
      await pods.patch(name, { metadata: { labels: { burst: String(i) } } }, 'merge');
    });
    await waitUntil(() => burst.length >= N_WRITES, 20_000);
    out(`write → handler (${N_WRITES} patches from 16 concurrent writers): p50 ${fmt(percentile(burst, 50), 2)} ms, p99 ${fmt(percentile(burst, 99), 2)} ms`);
    ac.abort();
    await running;

    const ours = await measureInChild(server.kubeconfig, 'skiff');
    const theirs = await measureInChild(server.kubeconfig, 'client-node');
    const bytes = JSON.stringify((await pods.get('p-0'))).length;
    out(`memory per 1,000 cached pods (${bytes} bytes of JSON each): skiff informer ${mib(ours)} MiB, @kubernetes/client-node informer ${mib(theirs)} MiB (ratio ${fmt(ours / theirs, 2)})`);
  } finally {
    ac.abort();
    client.close();
    await server.stop();
    await removeDir(server.dataDir);
  }
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const mib = (bytesPer1000: number): string => fmt(bytesPer1000 / 1024 / 1024, 2);

/** Heap bytes per 1,000 cached pods, measured by a child with a clean heap and --expose-gc. */
function measureInChild(kubeconfig: string, which: 'skiff' | 'client-node'): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', RUN_TS, 'informer', '--memory-child', kubeconfig, which], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /BYTES_PER_1000 (\d+)/.exec(stdout);
      if (code === 0 && m) resolve(Number(m[1]));
      else reject(new Error(`memory child (${which}) exited with ${code}: ${stdout}`));
    });
  });
}

async function memoryChild(kubeconfig: string, which: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const settle = (): number => {
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const ac = new AbortController();
  let count: () => number;
  let stop: () => Promise<void>;
  // Build the clients first so their code and agents are in the "before" figure.
  const client = new Client(loadKubeconfig(kubeconfig), { component: 'bench-memory', qps: -1 });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const before = settle();
  if (which === 'skiff') {
    const informer = new SharedIndexInformer<Pod>({ listerWatcher: listWatcherFor(client.resource<Pod>(PODS).namespace(NS)) });
    const running = informer.run(ac.signal);
    await informer.whenSynced(ac.signal);
    count = () => informer.indexer.list().length;
    stop = async () => {
      ac.abort();
      await running;
    };
  } else {
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/pods`, () => core.listNamespacedPod({ namespace: NS }));
    await informer.start();
    count = () => informer.list(NS).length;
    stop = () => informer.stop();
  }
  // Let the list's buffers become garbage before measuring.
  await new Promise((r) => setTimeout(r, 200));
  const after = settle();
  const n = count();
  process.stdout.write(`BYTES_PER_1000 ${Math.round(((after - before) / n) * 1000)}\n`);
  await stop();
  client.close();
}

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}
