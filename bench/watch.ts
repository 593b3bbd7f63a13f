import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { setMaxListeners } from 'node:events';
import { parse } from 'yaml';
import { EtcdStorage } from '../src/storage/etcd/index.js';
import { startEtcdCluster } from '../src/storage/etcd/testing/etcd-cluster.js';
import { removeDir, startServer } from '../test/e2e/harness.js';
import { DeliveryLedger, fmt, fmtGrowth, medianSample, percentile, runConcurrent } from './stats.js';

/**
 * `npm run bench -- watch`: 1,000 concurrent watchers on one API server
 * (write → event delivery p50/p99, memory per watcher, storage watches
 * open), and a list of 10,000 pods from the watch cache vs from storage, for
 * SQLite and etcd, beside the same figures from etcd directly.
 */
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const PODS = Number(process.env.BENCH_LIST ?? 10_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 50);

interface Figures {
  p50: number;
  p99: number;
  kbPerWatcher: number;
  storageWatches: number;
  listCacheMs: number;
  listStorageMs: number;
  deliveries: string;
}

function pod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', labels: { app: 'bench', tier: 'backend' } },
    spec: { containers: [{ name: 'app', image: 'registry.example.com/team/app:1.2.3', ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'production' }] }] },
  };
}

function client(kubeconfig: string, port: number) {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: WATCHERS + 64,
    ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
    cert: b64(kc.users[0]!.user['client-certificate-data']),
    key: b64(kc.users[0]!.user['client-key-data']),
  });
  const send = (method: string, path: string, body?: unknown, contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json') =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': contentType, ...(data ? { 'content-length': data.length } : {}) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(data);
    });
  /** Opens a watch; `onEvent` gets the arrival time of each event's resourceVersion. */
  const watch = (path: string, onEvent: (rv: number, at: number) => void) =>
    new Promise<ClientRequest>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, method: 'GET', path, agent }, (res) => {
        let buffered = '';
        res.on('data', (chunk: Buffer) => {
          const at = performance.now();
          buffered += chunk.toString();
          let nl;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            const rv = /"resourceVersion":"(\d+)"/.exec(line);
            if (rv && !line.startsWith('{"type":"BOOKMARK"')) onEvent(Number(rv[1]), at);
          }
        });
        res.on('error', () => undefined);
        resolve(req);
      });
      req.on('error', reject);
      req.end();
    });
  return { agent, send, watch };
}

async function apiFigures(storageArgs: string[]): Promise<Figures> {
  const server = await startServer({ command: 'apiserver', args: [...storageArgs, '--compaction-interval', '0'], timeoutMs: 60_000 });
  const c = client(server.kubeconfig, server.port);
  try {
    await c.send('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await runConcurrent(PODS, 32, async (i) => {
      const res = await c.send('POST', '/api/v1/namespaces/bench/pods', pod(`p${i}`));
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
    });
    const listed = JSON.parse((await c.send('GET', '/api/v1/namespaces/bench/pods?limit=1')).text) as { metadata: { resourceVersion: string } };
    const rv = listed.metadata.resourceVersion;
    const timeList = async (path: string) => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const res = await c.send('GET', path);
        if (res.status !== 200) throw new Error(`list ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    };
    const listCacheMs = await timeList('/api/v1/namespaces/bench/pods?resourceVersion=0');
    // An exact resourceVersion is read from the storage's history, never from the cache.
    const listStorageMs = await timeList(`/api/v1/namespaces/bench/pods?resourceVersion=${rv}&resourceVersionMatch=Exact`);

    // the server's own heap figure: the median of several samples after it settles (RSS keeps freed list buffers and is noise here)
    const heapKb = () =>
      medianSample(async () => {
        const m = /^nodejs_heap_size_used_bytes (\d+)/m.exec((await c.send('GET', '/metrics')).text);
        return m ? Number(m[1]) / 1024 : NaN;
      });
    const heapBefore = await heapKb();
    const ledger = new DeliveryLedger(WATCHERS, 10_000);
    // watchers start at the list's (current) resourceVersion: inside the cache's window, so this measures the cache path
    const watches = await Promise.all(
      Array.from({ length: WATCHERS }, () => c.watch(`/api/v1/namespaces/bench/pods?watch=true&resourceVersion=${rv}`, (eventRv, at) => ledger.arrived(String(eventRv), at))),
    );
    const heapAfter = await heapKb();
    const metrics = (await c.send('GET', '/metrics')).text;
    const storageWatches = [...metrics.matchAll(/^apiserver_storage_watches\{resource="\/registry\/pods\/"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);

    for (let i = 0; i < WRITES; i++) {
      const t0 = performance.now();
      const res = await c.send('PATCH', `/api/v1/namespaces/bench/pods/p${i}`, { metadata: { labels: { round: String(i) } } });
      const written = (JSON.parse(res.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      ledger.wrote(written, t0);
      await ledger.waitFor(written);
    }
    await ledger.settle(10_000);
    for (const w of watches) w.destroy();
    ledger.assertComplete('API watch');
    const latencies = ledger.latencies;
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), kbPerWatcher: (heapAfter - heapBefore) / WATCHERS, storageWatches, listCacheMs, listStorageMs, deliveries: ledger.summary() };
  } finally {
    c.agent.destroy();
    await server.stop();
    await removeDir(server.dataDir);
  }
}

/** The same figures with EtcdStorage used directly: one etcd watch per watcher. */
async function etcdDirect(endpoints: string[]): Promise<Figures> {
  const storage = new EtcdStorage({ endpoints });
  const controller = new AbortController();
  setMaxListeners(WATCHERS + 10, controller.signal);
  try {
    const prefix = '/bench-direct/pods/';
    const value = new TextEncoder().encode(JSON.stringify(pod('x')));
    await runConcurrent(PODS, 32, async (i) => void (await storage.create(`${prefix}p${i}`, value)));
    const timeList = async () => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await storage.list(prefix);
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    };
    const listMs = await timeList();
    const heap = () =>
      medianSample(async () => {
        global.gc?.();
        return process.memoryUsage().heapUsed;
      });
    const heapBefore = await heap();
    const ledger = new DeliveryLedger(WATCHERS, 10_000);
    for (let i = 0; i < WATCHERS; i++) {
      void (async () => {
        for await (const ev of storage.watch(prefix, { startRevision: 0, signal: controller.signal })) ledger.arrived(String(ev.kv.modRevision));
      })().catch(() => undefined);
    }
    const heapAfter = await heap();
    for (let i = 0; i < WRITES; i++) {
      const current = await storage.get(`${prefix}p${i}`);
      const t0 = performance.now();
      const res = await storage.update(`${prefix}p${i}`, value, current.kv!.modRevision);
      ledger.wrote(String(res.revision), t0);
      await ledger.waitFor(String(res.revision));
    }
    await ledger.settle(10_000);
    ledger.assertComplete('etcd watch');
    const latencies = ledger.latencies;
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), kbPerWatcher: (heapAfter - heapBefore) / 1024 / WATCHERS, storageWatches: WATCHERS, listCacheMs: NaN, listStorageMs: listMs, deliveries: ledger.summary() };
  } finally {
    controller.abort();
    await storage.close();
  }
}

export async function run(args: string[] = []): Promise<void> {
  if (args[0] === 'sqlite') {
    // `bench -- watch sqlite`: the API server on SQLite only (a quicker look at the list and delivery figures)
    const f = await apiFigures([]);
    process.stdout.write(`\nwatch cache on SQLite: list ${PODS} pods from cache ${fmt(f.listCacheMs, 1)} ms, from storage ${fmt(f.listStorageMs, 1)} ms (${fmt(f.listStorageMs / f.listCacheMs, 1)}x; aim >= 5x and < 150 ms); delivery p50/p99 ${fmt(f.p50, 2)} / ${fmt(f.p99, 2)} ms at ${WATCHERS} watchers (${f.deliveries}); load average ${loadavg().map((l) => fmt(l, 1)).join(' ')}\n`);
    return;
  }
  const etcd = await startEtcdCluster({ size: 1 });
  try {
    const sqlite = await apiFigures([]);
    const onEtcd = await apiFigures(['--storage', etcd.storageUrl]);
    const direct = await etcdDirect(etcd.endpoints);
    const rows: [string, (f: Figures) => string][] = [
      [`delivery p50 ms (${WATCHERS} watchers)`, (f) => fmt(f.p50, 2)],
      [`delivery p99 ms (${WATCHERS} watchers)`, (f) => fmt(f.p99, 2)],
      ['memory per watcher KB (heap, median of 5)', (f) => fmtGrowth(f.kbPerWatcher, 1)],
      ['deliveries', (f) => f.deliveries],
      ['storage watches open (pods)', (f) => String(f.storageWatches)],
      [`list ${PODS} pods from cache ms`, (f) => fmt(f.listCacheMs, 1)],
      [`list ${PODS} pods from storage ms`, (f) => fmt(f.listStorageMs, 1)],
      ['storage/cache list ratio', (f) => fmt(f.listStorageMs / f.listCacheMs, 1)],
    ];
    const cols = [['API on SQLite', sqlite], ['API on etcd', onEtcd], ['etcd directly', direct]] as const;
    const table = [['figure', ...cols.map(([name]) => name)], ...rows.map(([name, get]) => [name, ...cols.map(([, f]) => get(f))])];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
    process.stdout.write('\nwatch cache: 1 API server, concurrent watchers, list from cache vs storage\n');
    for (const r of table) process.stdout.write(`  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}\n`);
    process.stdout.write(
      `\naims: delivery p99 < 100 ms at ${WATCHERS} watchers (SQLite ${fmt(sqlite.p99, 1)}, etcd ${fmt(onEtcd.p99, 1)}); ` +
        `list from cache >= 5x faster than from storage (SQLite ${fmt(sqlite.listStorageMs / sqlite.listCacheMs, 1)}x, etcd ${fmt(onEtcd.listStorageMs / onEtcd.listCacheMs, 1)}x); ` +
        `one storage watch per resource (${sqlite.storageWatches}, ${onEtcd.storageWatches})\n`,
    );
  } finally {
    await etcd.stop();
  }
}
