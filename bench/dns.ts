import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Service } from 'kubernetes-types/core/v1.js';
import packet from 'dns-packet';
import { SERVICES } from '../src/api/resource-refs.js';
import { startTestApiServer } from '../src/testing/test-api-server.js';
import { startComponent } from './component-process.js';
import { fmt, percentile } from './stats.js';

/**
 * `npm run bench -- dns [services] [seconds] [inflight]`: the real `skiff
 * dns` in a process of its own (one Node thread: one core) against an API
 * server holding `services` Services, queried over UDP on loopback for
 * Service names it has answered before (the cached path, as pods' repeated
 * lookups are). A closed loop keeps `inflight` queries outstanding; it
 * prints queries per second and latency percentiles beside the anchors:
 * CoreDNS 1.2.5's published 33,669 qps for internal names on a 2-vCPU node
 * with both vCPUs pegged (coredns/deployment kubernetes/Scaling_CoreDNS.md,
 * ~16,800 per core, 2.6 ms mean), and the aim of 20,000 on one core.
 */

const ANCHOR_COREDNS_QPS_PER_CORE = 33_669 / 2;
const AIM_QPS = 20_000;

export async function run(args: string[]): Promise<void> {
  const services = Number(args[0] ?? 1000);
  const seconds = Number(args[1] ?? 5);
  const inflight = Number(args[2] ?? 32);
  const api = await startTestApiServer();
  const dns = startComponent({ command: 'dns', args: ['--kubeconfig', api.kubeconfigPath, '--dns-address', '127.0.0.1', '--dns-port', '0', '--health-port', '0', '--upstream', 'none', '--no-publish'] });
  try {
    const svc = api.client.resource<Service>(SERVICES).namespace('default');
    for (let i = 0; i < services; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, services - i) }, (_, j) => svc.create({ metadata: { name: `svc-${i + j}` }, spec: { ports: [{ name: 'http', port: 80 }] } })));
    }
    const port = await dnsPort(dns.logs);
    // the index may still be taking in the last Services: wait until the last one answers
    const names = Array.from({ length: services }, (_, i) => `svc-${i}.default.svc.cluster.local`);
    const queries = names.map((name) => packet.encode({ type: 'query', id: 0, flags: packet.RECURSION_DESIRED, questions: [{ name, type: 'A', class: 'IN' }] }));
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    await untilAnswered(socket, port, queries[queries.length - 1], 30_000);

    process.stdout.write(`\nskiff dns: A queries for ${services} cached Service names over UDP (one server process), ${inflight} in flight, ${seconds} s\n`);
    await load(socket, port, queries, inflight, 1000); // warm every name into the answer cache
    const cpuBefore = cpuSeconds(dns.proc.pid!);
    const r = await load(socket, port, queries, inflight, seconds * 1000);
    const cpu = cpuSeconds(dns.proc.pid!) - cpuBefore;
    socket.close();
    const qps = r.answered / r.elapsedS;
    // on a shared machine the server rarely gets a whole core: queries per CPU-second of the server is what one core sustains
    const perCore = r.answered / cpu;
    process.stdout.write(`  queries per second   ${fmt(qps, 0).padStart(8)}   (wall clock; the server used ${fmt((cpu / r.elapsedS) * 100, 0)}% of a core, machine load ${fmt(loadavg()[0], 1)})\n`);
    process.stdout.write(`  per CPU-second       ${fmt(perCore, 0).padStart(8)}   (one core: aim ${AIM_QPS}: ${fmt(perCore / AIM_QPS, 2)}×; CoreDNS ~${fmt(ANCHOR_COREDNS_QPS_PER_CORE, 0)}/core: ${fmt(perCore / ANCHOR_COREDNS_QPS_PER_CORE, 2)}×)\n`);
    process.stdout.write(`  latency p50 / p99    ${fmt(percentile(r.latencies, 50), 3)} / ${fmt(percentile(r.latencies, 99), 3)} ms   (CoreDNS mean 2.6 ms at its peak)\n`);
    process.stdout.write(`  answered ${r.answered}, NOERROR ${r.answered - r.errors}, lost ${r.lost}\n`);
  } finally {
    await dns.stop();
    await api.stop();
  }
}

/** User + system CPU time of a process so far, in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // after the command: state is field 3, utime 14 and stime 15 (clock ticks, 100 per second on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The DNS port from the component's start-up log line. */
async function dnsPort(logs: () => string): Promise<number> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const m = /"msg":"cluster DNS serving".*?"port":(\d+)/.exec(logs());
    if (m) return Number(m[1]);
    if (performance.now() > deadline) throw new Error(`skiff dns did not start:\n${logs().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Asks one query until it is answered NOERROR (the index has the Service), or throws at the deadline. */
async function untilAnswered(socket: dgram.Socket, port: number, query: Buffer, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const rcode = await new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => done(undefined), 200);
      const onMessage = (msg: Buffer) => done(msg.readUInt16BE(2) & 0xf);
      const done = (v: number | undefined) => {
        clearTimeout(timer);
        socket.off('message', onMessage);
        resolve(v);
      };
      socket.on('message', onMessage);
      query.writeUInt16BE(1, 0);
      socket.send(query, port, '127.0.0.1');
    });
    if (rcode === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the DNS server never answered the last Service');
}

interface LoadResult {
  answered: number;
  errors: number;
  lost: number;
  elapsedS: number;
  latencies: number[];
}

/** A closed loop: `inflight` queries outstanding, each answer sends the next; lost queries are resent after 1 s. */
function load(socket: dgram.Socket, port: number, queries: Buffer[], inflight: number, durationMs: number): Promise<LoadResult> {
  return new Promise((resolve) => {
    const sentAt = new Map<number, number>();
    const latencies: number[] = [];
    let nextId = 1;
    let nextName = 0;
    let answered = 0;
    let errors = 0;
    let lost = 0;
    const started = performance.now();
    const deadline = started + durationMs;
    let done = false;
    const send = (): void => {
      const id = nextId;
      nextId = nextId === 65535 ? 1 : nextId + 1;
      const q = queries[nextName];
      nextName = (nextName + 1) % queries.length;
      q.writeUInt16BE(id, 0);
      sentAt.set(id, performance.now());
      socket.send(q, port, '127.0.0.1');
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.off('message', onMessage);
      clearInterval(sweeper);
      resolve({ answered, errors, lost, elapsedS: (performance.now() - started) / 1000, latencies });
    };
    const onMessage = (msg: Buffer): void => {
      const id = msg.readUInt16BE(0);
      const at = sentAt.get(id);
      if (at === undefined) return;
      sentAt.delete(id);
      const now = performance.now();
      latencies.push(now - at);
      answered++;
      if ((msg.readUInt16BE(2) & 0xf) !== 0) errors++;
      if (now < deadline) send();
      else if (sentAt.size === 0) finish();
    };
    socket.on('message', onMessage);
    const sweeper = setInterval(() => {
      const now = performance.now();
      for (const [id, at] of sentAt) {
        if (now - at < 1000) continue;
        sentAt.delete(id);
        lost++;
        if (now < deadline) send();
      }
      if (now >= deadline + 1000) finish();
    }, 250);
    for (let i = 0; i < inflight; i++) send();
  });
}
