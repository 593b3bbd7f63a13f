import { loadavg, tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { once, setMaxListeners } from 'node:events';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse } from 'yaml';
import { decodeProtobufObject } from '../src/api/protobuf/decode-protobuf-object.js';
import { EtcdStorage } from '../src/storage/etcd/index.js';
import { startEtcdCluster } from '../src/storage/etcd/testing/etcd-cluster.js';
import { removeDir, startServer } from '../test/e2e/harness.js';
import type { HolderMessage } from './watch-holder.js';
import { MEMORY_PROBE_NODE_ARGS, probedHeapUsed } from './memory-probe.js';
import { onWatchEvents } from './watch-lines.js';
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
/** The many-watcher step (0: skipped): its watchers are held by client processes of WATCHERS_PER_PROCESS each (bench/watch-holder.ts). */
const MANY_WATCHERS = Number(process.env.BENCH_MANY_WATCHERS ?? 10_000);
const WATCHERS_PER_PROCESS = 2500;
/** A directory for the API server's CPU profile (node --cpu-prof), to see what a list or a delivery costs. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
/** Where the API servers' memory probe rows go (their environment inherits it). */
const MEMORY_PROBE_OUT = (process.env.MEMORY_PROBE_OUT = join(tmpdir(), `skiff-watch-bench-memory-${process.pid}.jsonl`));

/** One way of listing the pods: medians over LIST_ROUNDS requests. */
interface ListFigure {
  /** Request sent → first byte of the answer (the server's work before it streams). */
  ttfbMs: number;
  /** Request sent → last byte read (includes moving the body through TLS to this client on the same cores). */
  ttlbMs: number;
  /** The client's decoding of the body afterwards (JSON.parse / skiff's protobuf decoder), timed apart. */
  decodeMs: number;
  /** The API server's CPU time per list (from /proc; 10 ms ticks, averaged over the rounds). */
  serverCpuMs: number;
  bytes: number;
}

type ListWay = 'cache JSON' | 'storage JSON' | 'cache protobuf' | 'storage protobuf' | 'cache, pages of 500';
const LIST_WAYS: ListWay[] = ['cache JSON', 'storage JSON', 'cache protobuf', 'storage protobuf', 'cache, pages of 500'];
const LIST_ROUNDS = 7;

/** Delivery to MANY_WATCHERS watchers held by other processes. */
interface ManyFigures {
  watchers: number;
  processes: number;
  p50: number;
  p99: number;
  max: number;
  /** The API server's CPU per delivered event (/proc), µs. */
  serverCpuUsPerDelivery: number;
  deliveries: string;
  load: number;
}

interface Figures {
  p50: number;
  p99: number;
  many?: ManyFigures;
  kbPerWatcher: number;
  storageWatches: number;
  lists: Partial<Record<ListWay, ListFigure>>;
  deliveries: string;
}

/** The CPU time (user + system) a process has used, ms. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
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
  /** A GET timed to its first and last byte. */
  const timedGet = (path: string, accept = 'application/json') =>
    new Promise<{ status: number; body: Buffer; ttfb: number; ttlb: number }>((resolve, reject) => {
      const t0 = performance.now();
      const req = https.request({ host: '127.0.0.1', port, method: 'GET', path, agent, headers: { accept } }, (res) => {
        const ttfb = performance.now() - t0;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ttfb, ttlb: performance.now() - t0 }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  /** Opens a watch; `onEvent` gets the arrival time of each event's resourceVersion. */
  const watch = (path: string, onEvent: (rv: number, at: number) => void) =>
    new Promise<ClientRequest>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, method: 'GET', path, agent }, (res) => {
        onWatchEvents(res, () => performance.now(), onEvent);
        res.on('error', () => undefined);
        resolve(req);
      });
      req.on('error', reject);
      req.end();
    });
  return { agent, send, timedGet, watch };
}

/**
 * The pods listed each way, LIST_ROUNDS times: from the watch cache
 * (resourceVersion=0) and from storage (an Exact resourceVersion, which the
 * cache never serves), as JSON and protobuf, and the whole list walked in
 * pages of 500 (the continue pages come from the cache too).
 */
async function listFigures(c: ReturnType<typeof client>, rv: string, pid: number | undefined): Promise<Figures['lists']> {
  const base = '/api/v1/namespaces/bench/pods';
  const out: Figures['lists'] = {};
  for (const way of LIST_WAYS) {
    const accept = way.includes('protobuf') ? 'application/vnd.kubernetes.protobuf' : 'application/json';
    const query = way.startsWith('storage') ? `resourceVersion=${rv}&resourceVersionMatch=Exact` : 'resourceVersion=0';
    const rounds: ListFigure[] = [];
    for (let i = 0; i < LIST_ROUNDS; i++) {
      const cpu0 = cpuMs(pid);
      const round = { ttfbMs: 0, ttlbMs: 0, decodeMs: 0, serverCpuMs: 0, bytes: 0 };
      let next: string | undefined = way.includes('pages') ? `${base}?limit=500` : `${base}?${query}`;
      while (next) {
        const res = await c.timedGet(next, accept);
        if (res.status !== 200) throw new Error(`list ${next} answered ${res.status}: ${res.body.toString().slice(0, 500)}`);
        // pages: the first byte of the first page, the last byte of the last
        if (round.bytes === 0) round.ttfbMs = res.ttfb;
        round.ttlbMs += res.ttlb;
        round.bytes += res.body.length;
        const t0 = performance.now();
        const list = (accept === 'application/json' ? JSON.parse(res.body.toString()) : decodeProtobufObject(res.body)) as { metadata: { continue?: string } };
        round.decodeMs += performance.now() - t0;
        next = list.metadata.continue ? `${base}?limit=500&continue=${encodeURIComponent(list.metadata.continue)}` : undefined;
      }
      round.serverCpuMs = cpuMs(pid) - cpu0;
      rounds.push(round);
    }
    if (CPU_PROF_DIR) process.stdout.write(`${way}: until ${process.hrtime.bigint() / 1000n} µs (monotonic)\n`);
    const median = (k: keyof ListFigure) => percentile(rounds.map((r) => r[k]), 50);
    out[way] = { ttfbMs: median('ttfbMs'), ttlbMs: median('ttlbMs'), decodeMs: median('decodeMs'), serverCpuMs: rounds.reduce((n, r) => n + r.serverCpuMs, 0) / rounds.length, bytes: median('bytes') };
  }
  return out;
}

function printLists(title: string, lists: Figures['lists']): void {
  const rows = [['way', 'first byte ms', 'last byte ms', 'client decode ms', 'server CPU ms', 'MB']];
  for (const way of LIST_WAYS) {
    const f = lists[way];
    if (f) rows.push([way, fmt(f.ttfbMs, 1), fmt(f.ttlbMs, 1), fmt(f.decodeMs, 1), fmt(f.serverCpuMs, 1), fmt(f.bytes / 1e6, 1)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  process.stdout.write(`\n${title}: list ${PODS} pods, medians of ${LIST_ROUNDS} (last byte: the body read by this client on the same cores; decoding timed apart)\n`);
  for (const r of rows) process.stdout.write(`  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}\n`);
  const ratio = (a: ListWay, b: ListWay, k: keyof ListFigure) => fmt((lists[b]?.[k] ?? NaN) / (lists[a]?.[k] ?? NaN), 1);
  process.stdout.write(
    `  storage/cache JSON: ${ratio('cache JSON', 'storage JSON', 'ttlbMs')}x to the last byte, ${ratio('cache JSON', 'storage JSON', 'ttfbMs')}x to the first, ${ratio('cache JSON', 'storage JSON', 'serverCpuMs')}x server CPU; ` +
      `protobuf: ${ratio('cache protobuf', 'storage protobuf', 'ttlbMs')}x / ${ratio('cache protobuf', 'storage protobuf', 'ttfbMs')}x / ${ratio('cache protobuf', 'storage protobuf', 'serverCpuMs')}x (aim: >= 5x and < 150 ms from cache)\n`,
  );
}

async function apiFigures(storageArgs: string[]): Promise<Figures> {
  const server = await startServer({
    command: 'apiserver',
    args: [...storageArgs, '--compaction-interval', '0'],
    timeoutMs: 60_000,
    // the memory probe: its heap after forced full GCs, on SIGUSR2
    nodeArgs: [...MEMORY_PROBE_NODE_ARGS, ...(CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [])],
  });
  const c = client(server.kubeconfig, server.port);
  try {
    await c.send('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await runConcurrent(PODS, 32, async (i) => {
      const res = await c.send('POST', '/api/v1/namespaces/bench/pods', pod(`p${i}`));
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
    });
    const listed = JSON.parse((await c.send('GET', '/api/v1/namespaces/bench/pods?limit=1')).text) as { metadata: { resourceVersion: string } };
    const rv = listed.metadata.resourceVersion;
    const profileFrom = process.hrtime.bigint() / 1000n;
    const lists = await listFigures(c, rv, server.proc.pid);
    // the lists' time span on the monotonic clock the server's CPU profile uses (µs), to look at that part of it
    if (CPU_PROF_DIR) process.stdout.write(`lists from ${profileFrom} to ${process.hrtime.bigint() / 1000n} µs (monotonic)\n`);
    // the server's heap used after forced full GCs (the memory probe), median of 5 samples (RSS keeps freed list
    // buffers and is noise here); a difference below zero would be noise and prints so, never as a size
    const heapKb = () => medianSample(async () => (await probedHeapUsed(server.proc.pid!, MEMORY_PROBE_OUT)) / 1024, 5, 100);
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
    const many = MANY_WATCHERS > 0 ? await manyWatchers(c, server.kubeconfig, server.proc.pid) : undefined;
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), many, kbPerWatcher: (heapAfter - heapBefore) / WATCHERS, storageWatches, lists, deliveries: ledger.summary() };
  } finally {
    c.agent.destroy();
    await server.stop();
    await removeDir(server.dataDir);
  }
}

/**
 * MANY_WATCHERS watches from the current resourceVersion, held by client
 * processes (one TLS connection each, WATCHERS_PER_PROCESS per process: one
 * client event loop would otherwise be the figure), then WRITES writes one
 * at a time, each waited for at every watcher: write sent → event read by
 * the client, on the monotonic clock all processes share.
 */
async function manyWatchers(c: ReturnType<typeof client>, kubeconfig: string, pid: number | undefined): Promise<ManyFigures> {
  const listed = JSON.parse((await c.send('GET', '/api/v1/namespaces/bench/pods?limit=1')).text) as { metadata: { resourceVersion: string } };
  const path = `/api/v1/namespaces/bench/pods?watch=true&resourceVersion=${listed.metadata.resourceVersion}`;
  const ledger = new DeliveryLedger(MANY_WATCHERS, 10_000);
  // a child's arrival time (process.hrtime, ms) on this process's performance.now() clock (the same monotonic clock)
  const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const holder = fileURLToPath(new URL('./watch-holder.ts', import.meta.url));
  const processes = Math.ceil(MANY_WATCHERS / WATCHERS_PER_PROCESS);
  let failure: string | undefined;
  const children = Array.from({ length: processes }, (_, i) => {
    const count = Math.min(WATCHERS_PER_PROCESS, MANY_WATCHERS - i * WATCHERS_PER_PROCESS);
    const child = fork(holder, [kubeconfig, String(count), path], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const opened = new Promise<void>((resolve, reject) => {
      child.on('message', (m: HolderMessage) => {
        if (m.error) failure ??= m.error;
        if (m.opened === count) resolve();
        else if (m.opened !== undefined) reject(new Error(`a watch holder opened ${m.opened} of ${count}`));
        for (const [rv, at] of m.arrivals ?? []) ledger.arrived(String(rv), at - offset);
      });
      child.once('exit', (code) => reject(new Error(`a watch holder exited with ${code}`)));
    });
    return { child, opened };
  });
  try {
    const t0 = performance.now();
    await Promise.all(children.map((h) => h.opened));
    process.stdout.write(`${MANY_WATCHERS} watches open in ${fmt((performance.now() - t0) / 1000, 1)} s (${processes} client processes)\n`);
    const cpu0 = cpuMs(pid);
    const cpu0Hr = process.hrtime.bigint() / 1000n;
    for (let i = 0; i < WRITES; i++) {
      if (failure) throw new Error(`many watchers: ${failure}`);
      const at = performance.now();
      const res = await c.send('PATCH', `/api/v1/namespaces/bench/pods/p${i}`, { metadata: { labels: { many: String(i) } } });
      const written = (JSON.parse(res.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      ledger.wrote(written, at);
      await ledger.waitFor(written);
    }
    await ledger.settle(10_000);
    const cpu = cpuMs(pid) - cpu0;
    if (CPU_PROF_DIR) process.stdout.write(`many watchers' writes: ${cpu0Hr} to ${process.hrtime.bigint() / 1000n} µs (monotonic)\n`);
    if (failure) throw new Error(`many watchers: ${failure}`);
    ledger.assertComplete(`${MANY_WATCHERS} watchers`);
    const l = ledger.latencies;
    return { watchers: MANY_WATCHERS, processes, p50: percentile(l, 50), p99: percentile(l, 99), max: l.reduce((m, x) => Math.max(m, x), 0), serverCpuUsPerDelivery: (cpu * 1000) / (WRITES * MANY_WATCHERS), deliveries: ledger.summary(), load: loadavg()[0]! };
  } finally {
    for (const { child } of children) {
      if (child.connected) child.send('stop');
      if (child.exitCode === null && child.signalCode === null) await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000).unref())]);
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }
  }
}

function manyLine(label: string, m: ManyFigures | undefined): string {
  if (!m) return '';
  return `${label}: delivery p50/p99/max ${fmt(m.p50, 1)} / ${fmt(m.p99, 1)} / ${fmt(m.max, 1)} ms at ${m.watchers} watchers (held by ${m.processes} client processes; ${m.deliveries}), server CPU ${fmt(m.serverCpuUsPerDelivery, 1)} µs per delivered event (aim: p99 < 1,000 ms); load average ${fmt(m.load, 1)}\n`;
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
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), kbPerWatcher: (heapAfter - heapBefore) / 1024 / WATCHERS, storageWatches: WATCHERS, lists: { 'storage JSON': { ttfbMs: NaN, ttlbMs: listMs, decodeMs: NaN, serverCpuMs: NaN, bytes: NaN } }, deliveries: ledger.summary() };
  } finally {
    controller.abort();
    await storage.close();
  }
}

export async function run(args: string[] = []): Promise<void> {
  if (args[0] === 'sqlite') {
    // `bench -- watch sqlite`: the API server on SQLite only (a quicker look at the list and delivery figures)
    const f = await apiFigures([]);
    printLists('watch cache on SQLite', f.lists);
    process.stdout.write(`\nwatch cache on SQLite: delivery p50/p99 ${fmt(f.p50, 2)} / ${fmt(f.p99, 2)} ms at ${WATCHERS} watchers (${f.deliveries}), heap per watcher ${fmtGrowth(f.kbPerWatcher, 1)} KB after forced full GCs; load average ${loadavg().map((l) => fmt(l, 1)).join(' ')}\n`);
    process.stdout.write(manyLine('watch cache on SQLite', f.many));
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
      ['memory per watcher KB (heap growth after forced full GCs, medians of 5 samples)', (f) => fmtGrowth(f.kbPerWatcher, 1)],
      ['deliveries', (f) => f.deliveries],
      ['storage watches open (pods)', (f) => String(f.storageWatches)],
      [`list ${PODS} pods from storage ms (etcd directly: to the end of its read)`, (f) => fmt(f.lists['storage JSON']?.ttlbMs ?? NaN, 1)],
    ];
    const cols = [['API on SQLite', sqlite], ['API on etcd', onEtcd], ['etcd directly', direct]] as const;
    const table = [['figure', ...cols.map(([name]) => name)], ...rows.map(([name, get]) => [name, ...cols.map(([, f]) => get(f))])];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
    process.stdout.write('\nwatch cache: 1 API server, concurrent watchers, list from cache vs storage\n');
    for (const r of table) process.stdout.write(`  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}\n`);
    printLists('API on SQLite', sqlite.lists);
    printLists('API on etcd', onEtcd.lists);
    process.stdout.write(
      `\naims: delivery p99 < ${WATCHERS >= 10_000 ? '1,000' : '100'} ms at ${WATCHERS} watchers (SQLite ${fmt(sqlite.p99, 1)}, etcd ${fmt(onEtcd.p99, 1)}); ` +
        `one storage watch per resource (${sqlite.storageWatches}, ${onEtcd.storageWatches}); load average ${loadavg().map((l) => fmt(l, 1)).join(' ')}\n`,
    );
    process.stdout.write(manyLine('API on SQLite', sqlite.many) + manyLine('API on etcd', onEtcd.many));
  } finally {
    await etcd.stop();
  }
}
