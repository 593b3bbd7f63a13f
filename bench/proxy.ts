import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ENDPOINT_SLICES, SERVICES } from '../src/api/resource-refs.js';
import { ExecIptables } from '../src/base/iptables-runner.js';
import { MetricsRegistry } from '../src/base/metrics/registry.js';
import { createLogger } from '../src/machinery/logger.js';
import { IptablesProxier } from '../src/proxy/iptables/iptables-proxier.js';
import { proxyMetrics } from '../src/proxy/proxy-metrics.js';
import type { EndpointsMap, ProxyMode } from '../src/proxy/proxy-mode.js';
import { ProxyServer } from '../src/proxy/proxy-server.js';
import { InterfaceAddresses } from '../src/proxy/service-addresses.js';
import type { ServicePort } from '../src/proxy/service-port.js';
import { UserspaceProxier } from '../src/proxy/userspace/userspace-proxier.js';
import { startTestApiServer } from '../src/testing/test-api-server.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- proxy [seconds] [services]` (root): kube-proxy's data
 * path and control loop, in a private network namespace (the bench re-runs
 * itself under `unshare --net`, so the host's iptables stay untouched).
 *
 * Data path: a backend process listens on a "pod" address (a /32 local to the
 * namespace: no bridge hop, so the figures isolate what the proxy adds);
 * the bench connects to it directly, through a ClusterIP in iptables mode
 * (DNAT in nat OUTPUT, conntrack), and through the userspace mode's
 * forwarder. Connection setup rate: connect, read the reply, close, 8 at a
 * time; throughput: 256 MiB over one connection. Aim: iptables within 10%
 * of direct.
 *
 * Control loop: `services` ClusterIP Services with an EndpointSlice each on
 * a test API server, the real ProxyServer with the iptables mode; then one
 * slice's endpoint changes again and again, and each change is timed from
 * the API write to the end of the sync that programmed it. Aim: p99 < 1 s.
 */

const IN_NETNS = 'SKIFF_BENCH_PROXY_NETNS';
const POD_IP = '10.244.0.2';
const IPTABLES_IP = '10.96.0.20';
const USERSPACE_IP = '10.96.0.21';
const REPLY_PORT = 8080;
const SINK_PORT = 8081;
const THROUGHPUT_BYTES = 256 * 1024 * 1024;

const BACKEND = `
const net = require('node:net');
net.createServer((s) => s.end('ok')).listen(${REPLY_PORT}, '${POD_IP}');
net.createServer((s) => { let n = 0; s.on('data', (d) => (n += d.length)); s.on('end', () => s.end(String(n))); }).listen(${SINK_PORT}, '${POD_IP}', () => process.stdout.write('ready\\n'));
`;

export async function run(args: string[]): Promise<void> {
  if (process.getuid?.() !== 0) {
    process.stdout.write('bench proxy needs root (iptables, network namespaces)\n');
    return;
  }
  if (process.env[IN_NETNS] !== '1') {
    const child = spawn('unshare', ['--net', process.execPath, ...process.execArgv, process.argv[1], 'proxy', ...args], { env: { ...process.env, [IN_NETNS]: '1' }, stdio: 'inherit' });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    if (code !== 0) process.exitCode = code ?? 1;
    return;
  }
  const seconds = Number(args[0] ?? 3);
  const services = Number(args[1] ?? 1000);
  for (const cmd of [['link', 'set', 'lo', 'up'], ['link', 'add', 'skiff-b0', 'type', 'veth', 'peer', 'name', 'skiff-b1'], ['addr', 'add', '10.99.0.1/24', 'dev', 'skiff-b0'], ['addr', 'add', `${POD_IP}/32`, 'dev', 'skiff-b0'], ['link', 'set', 'skiff-b0', 'up'], ['link', 'set', 'skiff-b1', 'up'], ['route', 'add', 'default', 'dev', 'skiff-b0']]) execFileSync('ip', cmd);
  const backend = spawn(process.execPath, ['-e', BACKEND], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve) => backend.stdout!.once('data', () => resolve()));
    await dataPath(seconds);
    await programming(services);
  } finally {
    backend.kill();
  }
}

const quiet = createLogger('bench-proxy', {}, () => undefined);

function servicePort(name: string, clusterIP: string, port: number): ServicePort {
  return { key: `bench/${name}:/TCP`, namespace: 'bench', name, portName: '', protocol: 'TCP', clusterIP, port, externalIPs: [], externalLocal: false, internalLocal: false };
}

/** The two bench Services on `clusterIP`: port 80 → the pod's reply port, 81 → its sink. */
async function program(mode: ProxyMode, clusterIP: string): Promise<void> {
  const reply = servicePort('reply', clusterIP, 80);
  const sink = servicePort('sink', clusterIP, 81);
  const endpoints: EndpointsMap = new Map([
    [reply.key, [{ ip: POD_IP, port: REPLY_PORT, ready: true, serving: true, terminating: false, nodeName: 'n1' }]],
    [sink.key, [{ ip: POD_IP, port: SINK_PORT, ready: true, serving: true, terminating: false, nodeName: 'n1' }]],
  ]);
  await mode.sync([reply, sink], endpoints);
}

function connectOnce(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    s.on('data', () => undefined);
    s.on('end', () => resolve());
    s.on('error', reject);
  });
}

async function connectionRate(host: string, port: number, seconds: number, concurrency = 8): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await connectOnce(host, port);
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

function throughput(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 1);
    const started = performance.now();
    let sent = 0;
    let reply = '';
    const s = net.connect({ host, port }, () => {
      const pump = (): void => {
        while (sent < THROUGHPUT_BYTES) {
          sent += chunk.length;
          if (!s.write(chunk)) return void s.once('drain', pump);
        }
        s.end();
      };
      pump();
    });
    s.on('data', (d: Buffer) => (reply += d.toString()));
    s.on('end', () => (Number(reply) === THROUGHPUT_BYTES ? resolve(THROUGHPUT_BYTES / 1024 / 1024 / ((performance.now() - started) / 1000)) : reject(new Error(`sink got ${reply} bytes`))));
    s.on('error', reject);
  });
}

const median = (xs: number[]): number => percentile(xs, 50);

async function dataPath(seconds: number, rounds = 3): Promise<void> {
  // both modes at once, on different cluster IPs (the userspace one is not in the iptables rules), measured in interleaved rounds
  const iptables = new IptablesProxier({ iptables: new ExecIptables(), nodeName: 'n1', localhostNodePorts: false, logger: quiet });
  const userspace = new UserspaceProxier({ addresses: new InterfaceAddresses(quiet), nodeName: 'n1', nodePortAddress: '127.0.0.1', logger: quiet });
  const paths = [
    { what: 'direct to the pod IP', host: POD_IP, reply: REPLY_PORT, sink: SINK_PORT, rates: [] as number[], mibs: [] as number[] },
    { what: 'ClusterIP, iptables mode', host: IPTABLES_IP, reply: 80, sink: 81, rates: [] as number[], mibs: [] as number[] },
    { what: 'ClusterIP, userspace mode', host: USERSPACE_IP, reply: 80, sink: 81, rates: [] as number[], mibs: [] as number[] },
  ];
  try {
    await program(iptables, IPTABLES_IP);
    await program(userspace, USERSPACE_IP);
    for (const p of paths) await connectOnce(p.host, p.reply); // routed (and warm) before timing
    process.stdout.write(`\nkube-proxy data path (private netns, one endpoint; ${rounds} interleaved rounds of ${seconds} s of connections, 8 at a time, and ${THROUGHPUT_BYTES / 1024 / 1024} MiB over one connection; medians; machine load ${fmt(loadavg()[0], 1)})\n`);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? paths : [...paths].reverse();
      for (const p of order) {
        p.rates.push(await connectionRate(p.host, p.reply, seconds));
        p.mibs.push(await throughput(p.host, p.sink));
      }
    }
  } finally {
    await iptables.stop();
    await userspace.stop();
  }
  const direct = paths[0];
  process.stdout.write(`  ${'path'.padEnd(28)} ${'connections/s'.padStart(14)} ${'vs direct'.padStart(10)} ${'MiB/s'.padStart(10)} ${'vs direct'.padStart(10)}\n`);
  for (const p of paths) {
    const rate = median(p.rates);
    const mib = median(p.mibs);
    process.stdout.write(`  ${p.what.padEnd(28)} ${fmt(rate, 0).padStart(14)} ${`${fmt(rate / median(direct.rates), 2)}×`.padStart(10)} ${fmt(mib, 0).padStart(10)} ${`${fmt(mib / median(direct.mibs), 2)}×`.padStart(10)}\n`);
  }
  process.stdout.write('  (aim: iptables within 10% of direct, i.e. ≥ 0.90×; client, backend and forwarder share the machine)\n');
}

/** A ProxyMode that tells when a sync that programmed a given endpoint IP finished. */
class WatchedMode implements ProxyMode {
  readonly name: string;
  private waiters: { ip: string; resolve: (t: number) => void }[] = [];
  fullSyncMs: number[] = [];

  constructor(private readonly inner: ProxyMode, private readonly key: string) {
    this.name = inner.name;
  }

  async sync(services: readonly ServicePort[], endpoints: EndpointsMap): Promise<void> {
    const started = performance.now();
    await this.inner.sync(services, endpoints);
    const now = performance.now();
    this.fullSyncMs.push(now - started);
    const ips = new Set((endpoints.get(this.key) ?? []).map((e) => e.ip));
    this.waiters = this.waiters.filter((w) => (ips.has(w.ip) ? (w.resolve(now), false) : true));
  }

  programmed(ip: string): Promise<number> {
    return new Promise((resolve) => this.waiters.push({ ip, resolve }));
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }
}

async function programming(count: number, changes = 40): Promise<void> {
  const api = await startTestApiServer();
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const svcs = api.client.resource<Service>(SERVICES).namespace('default');
    const slices = api.client.resource<EndpointSlice>(ENDPOINT_SLICES).namespace('default');
    const slice = (i: number, ip: string): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `svc-${i}-abc`, labels: { 'kubernetes.io/service-name': `svc-${i}` } },
      addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], endpoints: [{ addresses: [ip], conditions: { ready: true }, nodeName: 'n1' }],
    });
    for (let i = 0; i < count; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, count - i) }, async (_, j) => {
        await svcs.create({ metadata: { name: `svc-${i + j}` }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
        await slices.create(slice(i + j, `10.244.${2 + Math.floor((i + j) / 250)}.${1 + ((i + j) % 250)}`));
      }));
    }
    const mode = new WatchedMode(new IptablesProxier({ iptables: new ExecIptables(), nodeName: 'n1', localhostNodePorts: false, logger: quiet }), 'default/svc-0:http/TCP');
    const proxy = new ProxyServer({ client: api.client, mode, logger: quiet, metrics: proxyMetrics(new MetricsRegistry()) });
    const first = mode.programmed('10.244.2.1');
    const t0 = performance.now();
    running = proxy.run(stop.signal);
    const initial = (await first) - t0;
    const latencies: number[] = [];
    for (let n = 0; n < changes; n++) {
      const ip = `10.244.1.${1 + (n % 250)}`;
      const current = await slices.get('svc-0-abc');
      const done = mode.programmed(ip);
      const started = performance.now();
      await slices.update({ ...current, endpoints: [{ addresses: [ip], conditions: { ready: true }, nodeName: 'n1' }] });
      latencies.push((await done) - started);
    }
    const rules = execFileSync('iptables-save', ['-t', 'nat']).toString().split('\n').filter((l) => l.startsWith('-A ')).length;
    const full = mode.fullSyncMs[0];
    process.stdout.write(`\nEndpoints change → iptables rules programmed, ${count} Services (${rules} nat rules), ${changes} changes of one EndpointSlice\n`);
    process.stdout.write(`  first sync (caches synced → programmed)  ${fmt(initial, 0)} ms (the full restore itself ${fmt(full, 0)} ms)\n`);
    process.stdout.write(`  change → programmed p50 / p99 / max      ${fmt(percentile(latencies, 50), 1)} / ${fmt(percentile(latencies, 99), 1)} / ${fmt(Math.max(...latencies), 1)} ms   (aim p99 < 1000 ms: ${fmt(percentile(latencies, 99) / 1000, 3)}×)\n`);
  } finally {
    stop.abort();
    await running;
    await api.stop();
  }
}

