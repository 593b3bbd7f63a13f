import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { startServer } from '../test/e2e/harness.js';
import { clientFromKubeconfig } from '../test/e2e/raw-client.js';
import { decodeProtobufObject } from '../src/api/protobuf/decode-protobuf-object.js';
import { wireFields } from '../src/api/protobuf/wire-reader.js';
import { benchNamespace, benchPod as pod } from './bench-pod.js';
import { printTracing, printTracingOverhead, tracingOverhead, tracingTarget } from './apiserver-tracing.js';
import { printRbac, printRbacCost, rbacCost, rbacTarget } from './apiserver-rbac.js';
import { startEchoServer } from './echo-server.js';
import { cpuSeconds } from './scale-probes.js';
import { DeliveryLedger, fmt, percentile, printTable, runConcurrent, type Row } from './stats.js';

const N_SEQ = Number(process.env.BENCH_SEQ ?? 1000);
const N_CONC = Number(process.env.BENCH_CONC ?? 4000);
const N_LIST = Number(process.env.BENCH_LIST ?? 10_000);
const WATCHERS = 100;
const WATCH_WRITES = 200;

/**
 * `npm run bench -- apiserver [tracing|rbac]`: the API server against raw
 * storage, JSON against protobuf, tracing on against off, RBAC against
 * AlwaysAllow; `tracing` or `rbac` runs only that comparison.
 */
export async function run(args: string[] = []): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'skiff-bench-'));
  try {
    if (args.includes('tracing')) return await printTracingOverhead(dir);
    if (args.includes('rbac')) return await printRbacCost(dir);
    if (args.includes('echo')) return printEcho(await echoOnly(join(dir, 'api')));
    const raw = await rawStorage(join(dir, 'raw'));
    const api = await apiFigures(join(dir, 'api'));
    const ratio = (a: number, b: number) => fmt(a / b, 2);
    const rows: Row[] = [
      { figure: `sequential creates/s (n=${N_SEQ})`, api: fmt(api.seqRate, 0), storage: fmt(raw.seqRate, 0), ratio: ratio(api.seqRate, raw.seqRate) },
      { figure: 'sequential create p50 ms', api: fmt(api.seqP50, 2), storage: fmt(raw.seqP50, 2), ratio: ratio(api.seqP50, raw.seqP50) },
      { figure: 'sequential create p99 ms', api: fmt(api.seqP99, 2), storage: fmt(raw.seqP99, 2), ratio: ratio(api.seqP99, raw.seqP99) },
      { figure: `32-client creates/s (n=${N_CONC})`, api: fmt(api.concRate, 0), storage: fmt(raw.concRate, 0), ratio: ratio(api.concRate, raw.concRate) },
      { figure: '32-client create p50 ms', api: fmt(api.concP50, 2), storage: fmt(raw.concP50, 2), ratio: ratio(api.concP50, raw.concP50) },
      { figure: '32-client create p99 ms', api: fmt(api.concP99, 2), storage: fmt(raw.concP99, 2), ratio: ratio(api.concP99, raw.concP99) },
      { figure: `list ${N_LIST} pods ms (best of 5)`, api: fmt(api.listMs, 1), storage: fmt(raw.listMs, 1), ratio: ratio(api.listMs, raw.listMs) },
      { figure: `watch delivery p50 ms (${WATCHERS} watchers)`, api: fmt(api.watchP50, 2), storage: fmt(raw.watchP50, 2), ratio: ratio(api.watchP50, raw.watchP50) },
      { figure: `watch delivery p99 ms (${WATCHERS} watchers)`, api: fmt(api.watchP99, 2), storage: fmt(raw.watchP99, 2), ratio: ratio(api.watchP99, raw.watchP99) },
    ];
    printTable('skiff API server vs raw SQLite storage', rows);
    printEcho(api.echo);
    const pb: Row[] = [
      { figure: `list ${N_LIST} pods ms (best of 5, client decode included)`, api: fmt(api.listMs, 1), storage: fmt(api.pbListMs, 1), ratio: ratio(api.pbListMs, api.listMs) },
      { figure: `list ${N_LIST} pods response KB`, api: fmt(api.listBytes / 1024, 0), storage: fmt(api.pbListBytes / 1024, 0), ratio: ratio(api.pbListBytes, api.listBytes) },
      { figure: `watch delivery p50 ms (${WATCHERS} watchers)`, api: fmt(api.watchP50, 2), storage: fmt(api.pbWatchP50, 2), ratio: ratio(api.pbWatchP50, api.watchP50) },
      { figure: `watch delivery p99 ms (${WATCHERS} watchers)`, api: fmt(api.watchP99, 2), storage: fmt(api.pbWatchP99, 2), ratio: ratio(api.pbWatchP99, api.watchP99) },
      { figure: 'watch event bytes (one pod)', api: fmt(api.watchEventBytes, 0), storage: fmt(api.pbWatchEventBytes, 0), ratio: ratio(api.pbWatchEventBytes, api.watchEventBytes) },
    ];
    printTable('skiff API server: JSON vs protobuf (Accept: application/vnd.kubernetes.protobuf)', pb, { figure: 'figure', api: 'JSON', storage: 'protobuf', ratio: 'protobuf/JSON' });
    const t = await tracingOverhead(join(dir, 'tracing'));
    printTracing(t);
    const rbac = await rbacCost(join(dir, 'rbac'));
    printRbac(rbac);
    process.stdout.write(
      `\ntargets: API creates >= 50% of raw storage throughput (32 clients: ${fmt((100 * api.concRate) / raw.concRate, 0)}%), ` +
        `>= 60% of the bare HTTPS+JSON echo server (32 clients ${fmt((100 * api.concRate) / api.echo.limit.concRate, 0)}%, sequential ${fmt((100 * api.seqRate) / api.echo.limit.seqRate, 0)}%), ` +
        `list of ${N_LIST} pods < 300 ms (${fmt(api.listMs, 0)} ms), watch delivery p99 < 50 ms (${fmt(api.watchP99, 1)} ms), ` +
        `${tracingTarget(t)}, ${rbacTarget(rbac)}\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function rawStorage(dir: string) {
  await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
  const storage = SqliteStorage.open({ path: join(dir, 'state.db') });
  const value = (name: string) => Buffer.from(JSON.stringify(pod(name)));
  const t0 = performance.now();
  const seq = await runConcurrent(N_SEQ, 1, async (i) => void (await storage.create(`/registry/pods/bench/seq-${i}`, value(`seq-${i}`))));
  const seqRate = N_SEQ / ((performance.now() - t0) / 1000);
  const t1 = performance.now();
  const conc = await runConcurrent(N_CONC, 32, async (i) => void (await storage.create(`/registry/pods/bench/conc-${i}`, value(`conc-${i}`))));
  const concRate = N_CONC / ((performance.now() - t1) / 1000);
  await runConcurrent(Math.max(0, N_LIST - N_SEQ - N_CONC), 32, async (i) => void (await storage.create(`/registry/pods/bench/fill-${i}`, value(`fill-${i}`))));
  let listMs = Infinity;
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const list = await storage.list('/registry/pods/bench/');
    // decode like a client would, for a fair comparison with the API
    list.kvs.forEach((kv) => JSON.parse(Buffer.from(kv.value).toString()));
    listMs = Math.min(listMs, performance.now() - s);
  }
  const ledger = new DeliveryLedger(WATCHERS, 10_000);
  const controller = new AbortController();
  const watchers = Array.from({ length: WATCHERS }, async () => {
    for await (const ev of storage.watch('/registry/pods/watch/', { startRevision: 0, signal: controller.signal })) ledger.arrived(ev.kv.key);
  });
  await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < WATCH_WRITES; i++) {
    const key = `/registry/pods/watch/w-${i}`;
    ledger.wrote(key);
    await storage.create(key, value(`w-${i}`));
  }
  await ledger.settle(10_000);
  controller.abort();
  await Promise.allSettled(watchers);
  await storage.close();
  ledger.assertComplete('raw storage watch');
  const delivery = ledger.latencies;
  return { seqRate, seqP50: percentile(seq, 50), seqP99: percentile(seq, 99), concRate, concP50: percentile(conc, 50), concP99: percentile(conc, 99), listMs, watchP50: percentile(delivery, 50), watchP99: percentile(delivery, 99) };
}

interface CreateFigures {
  seq: number[];
  seqRate: number;
  conc: number[];
  concRate: number;
  /** The server's CPU (user + system, from /proc) per create, sequential and 32 clients. */
  seqCpuMs: number;
  concCpuMs: number;
}

/** N_SEQ creates one at a time, then N_CONC with 32 in flight, timed and with the server's CPU per create. */
async function createFigures(create: (name: string) => Promise<void>, pid: number | undefined, prefix: string): Promise<CreateFigures> {
  let cpu = cpuSeconds(pid);
  const t0 = performance.now();
  const seq = await runConcurrent(N_SEQ, 1, (i) => create(`${prefix}seq-${i}`));
  const seqRate = N_SEQ / ((performance.now() - t0) / 1000);
  const seqCpuMs = ((cpuSeconds(pid) - cpu) * 1000) / N_SEQ;
  cpu = cpuSeconds(pid);
  const t1 = performance.now();
  const conc = await runConcurrent(N_CONC, 32, (i) => create(`${prefix}conc-${i}`));
  const concRate = N_CONC / ((performance.now() - t1) / 1000);
  const concCpuMs = ((cpuSeconds(pid) - cpu) * 1000) / N_CONC;
  return { seq, seqRate, conc, concRate, seqCpuMs, concCpuMs };
}

interface EchoFigures {
  api: CreateFigures;
  before: CreateFigures;
  after: CreateFigures;
  /** The limit: the better of the echo runs before and after skiff's creates. */
  limit: { seqRate: number; concRate: number; seqCpuMs: number; concCpuMs: number };
  load: number[];
}

function printEcho(e: EchoFigures): void {
  const pct = (a: number, b: number) => `${fmt((100 * a) / b, 0)}%`;
  const rows: Row[] = [
    { figure: `sequential creates/s (n=${N_SEQ})`, api: fmt(e.api.seqRate, 0), storage: `${fmt(e.limit.seqRate, 0)} (${fmt(e.before.seqRate, 0)} / ${fmt(e.after.seqRate, 0)})`, ratio: pct(e.api.seqRate, e.limit.seqRate) },
    { figure: `32-client creates/s (n=${N_CONC})`, api: fmt(e.api.concRate, 0), storage: `${fmt(e.limit.concRate, 0)} (${fmt(e.before.concRate, 0)} / ${fmt(e.after.concRate, 0)})`, ratio: pct(e.api.concRate, e.limit.concRate) },
    { figure: 'sequential create p50 / p99 ms', api: `${fmt(percentile(e.api.seq, 50), 2)} / ${fmt(percentile(e.api.seq, 99), 2)}`, storage: `${fmt(percentile(e.before.seq, 50), 2)} / ${fmt(percentile(e.before.seq, 99), 2)}`, ratio: '' },
    { figure: '32-client create p50 / p99 ms', api: `${fmt(percentile(e.api.conc, 50), 2)} / ${fmt(percentile(e.api.conc, 99), 2)}`, storage: `${fmt(percentile(e.before.conc, 50), 2)} / ${fmt(percentile(e.before.conc, 99), 2)}`, ratio: '' },
    { figure: 'server CPU ms per create, sequential', api: fmt(e.api.seqCpuMs, 2), storage: fmt(e.limit.seqCpuMs, 2), ratio: `${fmt(e.api.seqCpuMs / e.limit.seqCpuMs, 1)}x` },
    { figure: 'server CPU ms per create, 32 clients', api: fmt(e.api.concCpuMs, 2), storage: fmt(e.limit.concCpuMs, 2), ratio: `${fmt(e.api.concCpuMs / e.limit.concCpuMs, 1)}x` },
  ];
  printTable(
    `skiff API server vs the platform's limit: a bare Node HTTPS server (same certificate, client certificates requested, its own process) that parses each pod's JSON and answers it re-serialized; measured just before and just after skiff's creates (limit = the better; load average ${e.load.map((l) => fmt(l, 1)).join(' ')})`,
    rows,
    { figure: 'figure', api: 'skiff', storage: 'echo limit (before / after)', ratio: 'skiff/limit' },
  );
}

/**
 * skiff's creates (namespace `bench`) between two runs of the same creates against the echo
 * server, from the same client code with the same bodies.
 */
async function createsAgainstEcho(client: ReturnType<typeof clientFromKubeconfig>, server: { kubeconfig: string; proc: { pid?: number } }, dataDir: string): Promise<EchoFigures> {
  const creator = (c: ReturnType<typeof clientFromKubeconfig>) => async (name: string) => {
    const r = await c.request('POST', '/api/v1/namespaces/bench/pods', pod(name));
    if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
  };
  const echoServer = await startEchoServer(dataDir);
  const echoKubeconfig = join(dataDir, 'echo.kubeconfig');
  writeFileSync(echoKubeconfig, readFileSync(server.kubeconfig, 'utf8').replace(/server: "?https:\/\/[^\s"]+"?/, `server: https://127.0.0.1:${echoServer.port}`));
  const echoClient = clientFromKubeconfig(echoKubeconfig);
  try {
    const before = await createFigures(creator(echoClient), echoServer.pid, 'echo-');
    const api = await createFigures(creator(client), server.proc.pid, '');
    const after = await createFigures(creator(echoClient), echoServer.pid, 'echo-');
    return {
      api,
      before,
      after,
      limit: { seqRate: Math.max(before.seqRate, after.seqRate), concRate: Math.max(before.concRate, after.concRate), seqCpuMs: Math.min(before.seqCpuMs, after.seqCpuMs), concCpuMs: Math.min(before.concCpuMs, after.concCpuMs) },
      load: loadavg(),
    };
  } finally {
    echoClient.close();
    await echoServer.stop();
  }
}

/** `apiserver echo`: only skiff's creates against the echo limit. */
async function echoOnly(dataDir: string): Promise<EchoFigures> {
  const server = await startServer({ dataDir, command: 'apiserver', args: ['--compaction-interval', '0'] });
  const client = clientFromKubeconfig(server.kubeconfig);
  try {
    await benchNamespace(client, 'bench');
    return await createsAgainstEcho(client, server, dataDir);
  } finally {
    client.close();
    await server.stop();
  }
}

async function apiFigures(dataDir: string) {
  // tracing on, as skiff ships (tracingOverhead compares it with off)
  const server = await startServer({ dataDir, command: 'apiserver', args: ['--compaction-interval', '0'] });
  const client = clientFromKubeconfig(server.kubeconfig);
  try {
    await benchNamespace(client, 'bench');
    const echo = await createsAgainstEcho(client, server, dataDir);
    const { seq, seqRate, conc, concRate } = echo.api;
    const create = async (name: string) => {
      const r = await client.request('POST', '/api/v1/namespaces/bench/pods', pod(name));
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
    };
    await runConcurrent(Math.max(0, N_LIST - N_SEQ - N_CONC), 32, (i) => create(`fill-${i}`));
    let listMs = Infinity;
    let listBytes = 0;
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      const r = await client.request('GET', '/api/v1/namespaces/bench/pods');
      const items = (JSON.parse(r.body) as { items: unknown[] }).items.length;
      if (items < N_LIST) throw new Error(`listed ${items} pods, expected ${N_LIST}`);
      listMs = Math.min(listMs, performance.now() - s);
      listBytes = Buffer.byteLength(r.body);
    }
    // the same list as protobuf, decoded by the client into the same JSON objects
    let pbListMs = Infinity;
    let pbListBytes = 0;
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      const r = await client.send('GET', '/api/v1/namespaces/bench/pods', undefined, { Accept: 'application/vnd.kubernetes.protobuf, application/json' });
      if (!String(r.headers['content-type']).startsWith('application/vnd.kubernetes.protobuf')) throw new Error(`expected protobuf, got ${String(r.headers['content-type'])}`);
      const items = (decodeProtobufObject(r.bytes).items as unknown[]).length;
      if (items < N_LIST) throw new Error(`listed ${items} pods as protobuf, expected ${N_LIST}`);
      pbListMs = Math.min(pbListMs, performance.now() - s);
      pbListBytes = r.bytes.length;
    }
    await benchNamespace(client, 'watch');
    const ledger = new DeliveryLedger(WATCHERS, 20_000);
    // watch from the current resourceVersion (inside the cache's window): the figure is about the cache path
    const current = (JSON.parse((await client.request('GET', '/api/v1/namespaces/watch/pods?limit=1')).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const closers = await Promise.all(
      Array.from({ length: WATCHERS }, () =>
        client.watch(`/api/v1/namespaces/watch/pods?watch=1&resourceVersion=${current}`, (ev) => {
          if (ev.type === 'ADDED') ledger.arrived(ev.object.metadata.name);
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    for (let i = 0; i < WATCH_WRITES; i++) {
      const name = `w-${i}`;
      ledger.wrote(name);
      const r = await client.request('POST', '/api/v1/namespaces/watch/pods', { ...pod(name), metadata: { ...pod(name).metadata, namespace: 'watch' } });
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
    }
    await ledger.settle(20_000);
    closers.forEach((c) => c());
    ledger.assertComplete('API watch');
    const delivery = ledger.latencies;
    const pb = await protobufWatchFigures(client);
    return {
      seqRate,
      seqP50: percentile(seq, 50),
      seqP99: percentile(seq, 99),
      concRate,
      concP50: percentile(conc, 50),
      concP99: percentile(conc, 99),
      listMs,
      listBytes,
      pbListMs,
      pbListBytes,
      watchP50: percentile(delivery, 50),
      watchP99: percentile(delivery, 99),
      ...pb,
      echo,
    };
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * The watch figures again with protobuf watchers (length-prefixed WatchEvent
 * frames), each frame decoded to the pod's name as a client must; plus the
 * size of one event in each encoding.
 */
async function protobufWatchFigures(client: ReturnType<typeof clientFromKubeconfig>) {
  await benchNamespace(client, 'watchpb');
  const ledger = new DeliveryLedger(WATCHERS, 20_000);
  const current = (JSON.parse((await client.request('GET', '/api/v1/namespaces/watchpb/pods?limit=1')).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  let pbWatchEventBytes = 0;
  const closers = await Promise.all(
    Array.from({ length: WATCHERS }, () =>
      client.watchProtobuf(`/api/v1/namespaces/watchpb/pods?watch=1&resourceVersion=${current}`, (frame) => {
        const ev = decodeWatchEvent(frame);
        if (ev.type !== 'ADDED') return;
        pbWatchEventBytes = frame.length + 4;
        ledger.arrived(decodeProtobufObject(ev.raw).metadata?.name ?? '');
      }),
    ),
  );
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < WATCH_WRITES; i++) {
    const name = `w-${i}`;
    ledger.wrote(name);
    const r = await client.request('POST', '/api/v1/namespaces/watchpb/pods', { ...pod(name), metadata: { ...pod(name).metadata, namespace: 'watchpb' } });
    if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
  }
  await ledger.settle(20_000);
  closers.forEach((c) => c());
  ledger.assertComplete('API protobuf watch');
  const created = await client.request('GET', '/api/v1/namespaces/watchpb/pods/w-0');
  const watchEventBytes = Buffer.byteLength(`{"type":"ADDED","object":${created.body.trimEnd()}}\n`);
  return { pbWatchP50: percentile(ledger.latencies, 50), pbWatchP99: percentile(ledger.latencies, 99), pbWatchEventBytes, watchEventBytes };
}

/** metav1.WatchEvent {1 type, 2 object: RawExtension {1 raw}}. */
function decodeWatchEvent(frame: Buffer): { type: string; raw: Uint8Array } {
  let type = '';
  let raw: Uint8Array = new Uint8Array(0);
  for (const f of wireFields(frame)) {
    if (f.field === 1) type = Buffer.from(f.data).toString();
    else if (f.field === 2) for (const g of wireFields(f.data)) if (g.field === 1) raw = g.data;
  }
  return { type, raw };
}
