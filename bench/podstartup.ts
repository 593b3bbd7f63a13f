import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Client, loadKubeconfig } from '../src/client/rest/index.js';
import { busyboxLayer, dockerArchive } from '../src/kubelet/images/busybox-image.js';
import { removeDir, ROOT, startServer } from '../test/e2e/harness.js';
import { fmt, percentile } from './stats.js';
import { requestCounts } from './scale-probes.js';

/**
 * `npm run bench -- podstartup [--pods 100] [--rate 10] [--runtime process|containerd|both]`:
 * upstream's pod startup SLI on one `skiff server` (API server, scheduler,
 * kubelet): pods are created at a steady rate, and each pod's latency runs
 * from the create request to the watch event that first shows it Running.
 * Scheduling, the kubelet's informer, sandbox and container start, and the
 * status write are all inside the figure; there is no image pull (containerd
 * pods run an image imported beforehand). Beside each runtime its floor on
 * this machine: a bare process spawn for the process runtime, a bare
 * `runc run` of the same image for containerd. Prints figures; asserts
 * nothing. `both` (the default) measures containerd only as root with it
 * installed. On containerd it also prints the CPU time per pod of the
 * `skiff server` process, of containerd (with the CNI plugins it ran) and of
 * the pods' shims (with runc), from /proc over the measured window, and on
 * both runtimes the API writes per pod by verb and resource (the server's
 * apiserver_request_total over the same window), and the sustainable rate:
 * the machine's cores over the CPU per pod, past which pods queue and the
 * latencies measure the queue rather than a start.
 * SKIFF_BENCH_LOG=FILE keeps the server's log; SKIFF_BENCH_WRAP=CMD runs the
 * server under CMD (which must exec its arguments, e.g. to add --cpu-prof).
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { pods: { type: 'string', default: '100' }, rate: { type: 'string', default: '10' }, runtime: { type: 'string', default: 'both' } } });
  const count = Number(values.pods);
  const rate = Number(values.rate);
  const which = values.runtime ?? 'both';
  const canContainerd = process.getuid?.() === 0 && hasCommand('containerd') && hasCommand('runc') && existsSync('/usr/lib/cni/bridge');
  if (which === 'containerd' && !canContainerd) throw new Error('the containerd column needs root, containerd, runc and the CNI plugins');
  process.stdout.write(`load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);

  if (which !== 'containerd') {
    const spawnMs = await bareSpawn(50);
    const r = await measure({ args: [], count, rate, image: 'busybox' });
    report('process runtime', r, count, rate);
    process.stdout.write(`  bare process spawn  ${fmt(spawnMs.p50, 2)} ms p50, ${fmt(spawnMs.p99, 2)} ms p99 (spawn → exit of \`true\`)\n`);
    process.stdout.write(`  p50 / spawn         ${fmt(percentile(r.samples, 50) / spawnMs.p50)}x\n`);
  }
  if (which !== 'process' && canContainerd) {
    const runcMs = await bareRunc(20);
    const r = await measure({ args: ['--container-runtime', 'containerd'], count, rate, image: IMAGE, importImage: true });
    report('containerd', r, count, rate);
    process.stdout.write(`  bare runc run       ${fmt(runcMs.p50)} ms p50, ${fmt(runcMs.p99)} ms p99 (\`runc run\` of the same image's \`true\`, start → exit)\n`);
    process.stdout.write(`  p50 / runc run      ${fmt(percentile(r.samples, 50) / runcMs.p50)}x, p99 / runc run ${fmt(percentile(r.samples, 99) / runcMs.p99)}x\n`);
  } else if (which === 'both') {
    process.stdout.write('\ncontainerd column skipped: needs root, containerd, runc and the CNI plugins\n');
  }
}

/** The image the containerd pods run: the host's static busybox, imported before the clock runs. */
const IMAGE = 'skiff.bench/busybox:1';

interface Measured {
  samples: number[];
  toBind: number[];
  onNode: number[];
  /** CPU seconds spent while the pods started, by whom (containerd runs only). */
  cpu?: { server: number; containerd: number; shims: number };
  /** API requests other than reads made while the pods started, by verb and resource (the bench's own creates included). */
  writes: { key: string; count: number }[];
  /** The load average when the measured window closed. */
  load: number[];
}

function report(title: string, r: Measured, count: number, rate: number): void {
  process.stdout.write(`\n${title}: pod startup latency (created → Running on a watch), ${count} pods at ${rate}/s on one node\n`);
  process.stdout.write(`  load average        ${r.load.map((l) => l.toFixed(1)).join(' ')} (1, 5, 15 min, once the last pod ran)\n`);
  process.stdout.write(`  pods Running        ${r.samples.length}/${count}\n`);
  process.stdout.write(`  p50                 ${fmt(percentile(r.samples, 50))} ms\n`);
  process.stdout.write(`  p90                 ${fmt(percentile(r.samples, 90))} ms\n`);
  process.stdout.write(`  p99                 ${fmt(percentile(r.samples, 99))} ms   (upstream SLO 5000 ms)\n`);
  process.stdout.write(`  max                 ${fmt(Math.max(...r.samples))} ms\n`);
  process.stdout.write(`  of which scheduled  ${fmt(percentile(r.toBind, 50))} ms p50, ${fmt(percentile(r.toBind, 99))} ms p99 (created → bound)\n`);
  process.stdout.write(`  of which on node    ${fmt(percentile(r.onNode, 50))} ms p50, ${fmt(percentile(r.onNode, 99))} ms p99 (bound → Running)\n`);
  if (r.cpu) {
    const per = (s: number) => `${fmt((s * 1000) / count)} ms`;
    const total = r.cpu.server + r.cpu.containerd + r.cpu.shims;
    process.stdout.write(`  CPU per pod         ${per(total)}: skiff server ${per(r.cpu.server)}, containerd + CNI ${per(r.cpu.containerd)}, shims + runc ${per(r.cpu.shims)}\n`);
    // what the node can carry: past it, pods queue and the latency grows with the run rather than measuring a start
    const cores = availableParallelism();
    const sustainable = (cores * count) / total;
    process.stdout.write(`  sustainable rate    ${fmt(sustainable, 1)} pods/s (${cores} cores / CPU per pod, if nothing else ran)${rate > sustainable ? `: ${rate}/s is over it, so these latencies measure a queue` : ''}\n`);
  }
  const total = r.writes.reduce((n, w) => n + w.count, 0);
  process.stdout.write(`  API writes per pod  ${fmt(total / count, 2)}: ${r.writes.map((w) => `${w.key} ${fmt(w.count / count, 2)}`).join(', ')}\n`);
}

/** CPU seconds (its own and its reaped children's) of a process, from /proc/<pid>/stat; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17 (1-based); f starts at field 3
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

/** The server's, its containerd's and the shims' CPU seconds so far (containerd and shims found by the data dir in their command line). */
function runtimeCpu(serverPid: number, dataDir: string): { server: number; containerd: number; shims: number } {
  let containerd = 0;
  let shims = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes(dataDir)) continue;
    if (cmd.startsWith('containerd\0')) containerd += cpuSeconds(Number(entry));
    else if (cmd.includes('containerd-shim')) shims += cpuSeconds(Number(entry));
  }
  return { server: cpuSeconds(serverPid), containerd, shims };
}

/** One server, `count` pods at `rate`/s, each timed from its create to the watch event showing it Running. */
async function measure(o: { args: string[]; count: number; rate: number; image: string; importImage?: boolean }): Promise<Measured> {
  const { count, rate } = o;
  const server = await startServer({ command: 'server', args: o.args, timeoutMs: 120_000, wrap: process.env.SKIFF_BENCH_WRAP ? [process.env.SKIFF_BENCH_WRAP] : undefined });
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
    if (o.importImage) {
      const archive = join(server.dataDir, 'bench-image.tar');
      writeFileSync(archive, dockerArchive(busyboxLayer(), { tags: [o.image] }));
      execFileSync(process.execPath, [join(ROOT, 'bin/skiff.js'), 'images', 'import', '--data-dir', server.dataDir, archive], { stdio: 'ignore' });
      // a warm-up pod, so the pod network is configured (the node's pod CIDR) and the image unpacked before the clock runs
      await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'warm-up' }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: o.image, imagePullPolicy: 'Never', command: ['sleep', '3600'] }] } });
      for (let i = 0; ; i++) {
        if ((await pods.get('warm-up')).status?.phase === 'Running') break;
        if (i > 1200) throw new Error('the warm-up pod did not start in 2 min');
        await new Promise((r) => setTimeout(r, 100));
      }
      await pods.delete('warm-up', { gracePeriodSeconds: 0 });
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

    const requestsAtStart = await requestCounts(client);
    const cpuAtStart = o.importImage ? runtimeCpu(server.proc.pid!, server.dataDir) : undefined;
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
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: o.image, imagePullPolicy: o.importImage ? 'Never' : undefined, command: ['sleep', '3600'] }] },
      }).catch((err: Error) => process.stderr.write(`create ${name}: ${err.message}\n`));
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 180_000)))]);
    clearTimeout(timer);
    const cpuAtEnd = cpuAtStart && runtimeCpu(server.proc.pid!, server.dataDir);
    const load = loadavg();
    const writes = writesBetween(requestsAtStart, await requestCounts(client));
    const samples = [...latencies.values()];
    const toBind = [...bound.values()];
    const onNode = [...latencies].map(([n, l]) => l - (bound.get(n) ?? 0));
    abort.abort();
    await watching;
    // gone before the server stops, so its graceful stop has nothing left to wait for: a grace period (not 0, which
    // removes the objects at once) leaves each pod in the API until the kubelet has torn its sandbox down
    await pods.deleteCollection({ labelSelector: 'bench=podstartup', gracePeriodSeconds: 1 }).catch(() => undefined);
    for (let i = 0; i < 1800 && (await pods.list({ labelSelector: 'bench=podstartup' })).items.length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    const cpu = cpuAtStart && cpuAtEnd && { server: cpuAtEnd.server - cpuAtStart.server, containerd: cpuAtEnd.containerd - cpuAtStart.containerd, shims: cpuAtEnd.shims - cpuAtStart.shims };
    return { samples, toBind, onNode, cpu, writes, load };
  } finally {
    abort.abort();
    client.close();
    // skiff server stops its pods on a graceful stop
    await server.stop();
    if (process.env.SKIFF_BENCH_LOG) writeFileSync(process.env.SKIFF_BENCH_LOG, server.logs());
    if (o.importImage) {
      try {
        execFileSync('ip', ['link', 'del', 'skiff0'], { stdio: 'ignore' });
      } catch {
        // no bridge was made
      }
    }
    // a server killed mid-stop can leave the runtime's mounts behind: say so rather than lose the figures
    await removeDir(server.dataDir).catch((err: Error) => process.stderr.write(`could not remove ${server.dataDir}: ${err.message}\n`));
  }
}

/** The change in API requests that write (create, update, patch, delete), most first. */
function writesBetween(before: { key: string; count: number }[], after: { key: string; count: number }[]): { key: string; count: number }[] {
  const was = new Map(before.map((b) => [b.key, b.count]));
  return after
    .filter((a) => /^(CREATE|UPDATE|PATCH|DELETE|DELETECOLLECTION) /.test(a.key))
    .map((a) => ({ key: a.key, count: a.count - (was.get(a.key) ?? 0) }))
    .filter((a) => a.count > 0)
    .sort((a, b) => b.count - a.count);
}

function hasCommand(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * `runc run` of the same busybox root filesystem running `true`, `n` times:
 * the floor for a containerd pod (namespaces, cgroup, pivot_root, exec; no
 * shim, no sandbox, no CNI).
 */
async function bareRunc(n: number): Promise<{ p50: number; p99: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-bench-runc-'));
  try {
    const rootfs = join(dir, 'rootfs');
    mkdirSync(rootfs);
    execFileSync('tar', ['-x', '-C', rootfs], { input: busyboxLayer() });
    execFileSync('runc', ['spec', '--bundle', dir]);
    const spec = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { process: { args: string[]; terminal: boolean } };
    spec.process.args = ['/bin/true'];
    spec.process.terminal = false;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(spec));
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        const p = spawn('runc', ['--root', join(dir, 'state'), 'run', '--bundle', dir, `bench-${process.pid}-${i}`], { stdio: 'ignore' });
        p.once('error', reject);
        p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`runc run exited with ${code}`))));
      });
      samples.push(performance.now() - t0);
    }
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
