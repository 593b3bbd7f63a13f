import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { SERVICE_ACCOUNTS } from '../src/api/resource-refs.js';
import { Client, loadKubeconfig } from '../src/client/rest/index.js';
import { removeDir, startServer } from '../test/e2e/harness.js';
import { fetchMetrics, histogramQuantile, parseHistogram, startComponent } from './component-process.js';
import { fmt, percentile, runConcurrent } from './stats.js';

/**
 * `npm run bench -- scheduler [shape…] [--method upstream|backlog|both]
 * [--profile DIR] [--qps N]`: upstream's scheduler_perf workloads on
 * simulated nodes (Node objects with capacity, no kubelet). Per shape and
 * method: a fresh `skiff apiserver`, nodes and already-bound pods created,
 * then one of two methods:
 * - `upstream` (scheduler_perf's): `skiff scheduler` is started and synced
 *   first; the measured pods are then created (16 at a time) while it runs.
 *   Throughput is measured pods over the whole measured phase, from the first
 *   create to the last pod seen bound on a watch; also the per-second
 *   throughput percentiles (upstream's throughput collector) and each pod's
 *   latency from its create's answer to its binding seen on the watch.
 * - `backlog` (skiff's earlier figure): every measured pod is created while
 *   no scheduler runs, then the scheduler starts and the clock runs from its
 *   first scheduling cycle (cache synced) to the last binding: pod creation
 *   is not part of it, so it is not comparable to upstream's threshold.
 * Attempt and queued → bound latency percentiles come from the scheduler's
 * own histograms. Prints figures and ratios to upstream's thresholds;
 * asserts nothing.
 */

interface Shape {
  name: string;
  nodes: number;
  existing: number;
  measured: number;
  /** Zone labels given to nodes round-robin (none: no zone label). */
  zones?: string[];
  existingNamespace: string;
  measuredNamespace: string;
  existingPod: (name: string, ns: string) => Pod;
  measuredPod: (name: string, ns: string) => Pod;
  /** Upstream's pods/s threshold for the shape (on larger machines). */
  threshold: string;
  thresholdLow: number;
}

/** upstream's node-default: 4 cpu, 32Gi, 110 pods. */
function node(i: number, zones?: string[]): Node {
  const name = `node-${i}`;
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name };
  if (zones) labels['topology.kubernetes.io/zone'] = zones[i % zones.length];
  const capacity = { cpu: '4', memory: '32Gi', pods: '110' };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True' }] } };
}

/** upstream's pod-default: one pause container asking for 100m / 500Mi. */
function defaultPod(name: string, namespace: string, labels: Record<string, string> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '500Mi' } } }] },
  };
}

/** upstream's pod-with-pod-anti-affinity: at most one `color=green` pod per host across both namespaces. */
function antiAffinityPod(name: string, namespace: string): Pod {
  const p = defaultPod(name, namespace, { color: 'green' });
  p.spec!.affinity = {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { color: 'green' } }, topologyKey: 'kubernetes.io/hostname', namespaces: ['sched-0', 'sched-1'] }],
    },
  };
  return p;
}

/** upstream's pod-with-topology-spreading: hard spread over zones, maxSkew 5. */
function spreadPod(name: string, namespace: string): Pod {
  const p = defaultPod(name, namespace, { color: 'blue' });
  p.spec!.topologySpreadConstraints = [{ maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { color: 'blue' } } }];
  return p;
}

const SHAPES: Shape[] = [
  { name: 'SchedulingBasic/500Nodes', nodes: 500, existing: 500, measured: 1000, existingNamespace: 'default', measuredNamespace: 'default', existingPod: (n, ns) => defaultPod(n, ns), measuredPod: (n, ns) => defaultPod(n, ns), threshold: '—', thresholdLow: NaN },
  { name: 'SchedulingBasic/5000Nodes_10000Pods', nodes: 5000, existing: 1000, measured: 10000, existingNamespace: 'default', measuredNamespace: 'default', existingPod: (n, ns) => defaultPod(n, ns), measuredPod: (n, ns) => defaultPod(n, ns), threshold: '680', thresholdLow: 680 },
  { name: 'TopologySpreading/5000Nodes_5000Pods', nodes: 5000, existing: 1000, measured: 5000, zones: ['moon-1', 'moon-2', 'moon-3'], existingNamespace: 'default', measuredNamespace: 'default', existingPod: (n, ns) => defaultPod(n, ns), measuredPod: spreadPod, threshold: '85–125', thresholdLow: 85 },
  { name: 'SchedulingPodAntiAffinity/5000Nodes_2000Pods', nodes: 5000, existing: 1000, measured: 2000, existingNamespace: 'sched-0', measuredNamespace: 'sched-1', existingPod: antiAffinityPod, measuredPod: antiAffinityPod, threshold: '60', thresholdLow: 60 },
];

type Method = 'upstream' | 'backlog';

interface Result {
  shape: Shape;
  method: Method;
  podsPerSecond: number;
  /** upstream: pods bound in each whole second of the measured phase, p50 / p99 (upstream's throughput collector). */
  perSecondP50: number;
  perSecondP99: number;
  /** upstream: a pod's create answered → its binding seen on the watch. */
  createdToBoundP50: number;
  createdToBoundP99: number;
  /** upstream: the measured pods' creation rate (the phase cannot bind faster than pods arrive). */
  createdPerSecond: number;
  firstBindMs: number;
  attemptP50: number;
  attemptP99: number;
  e2eP50: number;
  e2eP99: number;
  setupMs: number;
}

const PODS = { group: '', version: 'v1', resource: 'pods' };

const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);

async function runShape(shape: Shape, method: Method, o: { qps: number; profileDir?: string }): Promise<Result> {
  const setupStart = performance.now();
  const server = await startServer({ command: 'apiserver' });
  try {
    const client = new Client({ ...loadKubeconfig(server.kubeconfig), qps: -1 }, { component: 'bench' });
    const nodes = client.resource<Node>({ group: '', version: 'v1', resource: 'nodes' });
    const namespaces = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    for (const ns of new Set([shape.existingNamespace, shape.measuredNamespace])) {
      if (ns !== 'default') await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      // A cluster's namespaces have their `default` ServiceAccount (the controller manager's job, not running here);
      // without it the ServiceAccount admission plugin waits ~1.5 s on every pod create, as upstream's does.
      await client.resource(SERVICE_ACCOUNTS).namespace(ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } });
    }
    progress(`${shape.name}: creating ${shape.nodes} nodes, ${shape.existing} bound pods, ${shape.measured} pending pods`);
    await runConcurrent(shape.nodes, 16, async (i) => void (await nodes.create(node(i, shape.zones))));
    progress(`${shape.name}: nodes created at ${fmt((shape.nodes * 1000) / (performance.now() - setupStart), 0)}/s`);
    // Existing pods are bound already (spread over the nodes): they fill the cache, they are not measured.
    const existing = client.resource<Pod>(PODS).namespace(shape.existingNamespace);
    await runConcurrent(shape.existing, 16, async (i) => {
      const p = shape.existingPod(`init-${i}`, shape.existingNamespace);
      p.spec!.nodeName = `node-${i % shape.nodes}`;
      await existing.create(p);
    });
    const measured = client.resource<Pod>(PODS).namespace(shape.measuredNamespace);
    const createMeasured = (createdAt?: Map<string, number>) =>
      runConcurrent(shape.measured, 16, async (i) => {
        const name = `measured-${i}`;
        await measured.create(shape.measuredPod(name, shape.measuredNamespace));
        createdAt?.set(name, performance.now());
      });
    if (method === 'backlog') await createMeasured();
    const setupMs = performance.now() - setupStart;

    // Watch for bindings before the scheduler exists, so none is missed.
    const bound = new Map<string, number>();
    const stopWatch = new AbortController();
    let lastBind = 0;
    let firstBind = 0;
    let allBound!: () => void;
    const done = new Promise<void>((r) => (allBound = r));
    const see = (p: Pod): void => {
      if (!p.spec?.nodeName || !p.metadata?.name?.startsWith('measured-') || bound.has(p.metadata.name)) return;
      lastBind = performance.now();
      bound.set(p.metadata.name, lastBind);
      firstBind ||= lastBind;
      if (bound.size === shape.measured) allBound();
    };
    let listed = await measured.list();
    const watching = (async () => {
      // A watcher that falls behind is dropped by the server: list again and resume.
      while (!stopWatch.signal.aborted) {
        try {
          for await (const ev of measured.watch({ resourceVersion: listed.metadata?.resourceVersion, signal: stopWatch.signal })) {
            if (ev.type === 'ERROR') break;
            see(ev.object);
          }
        } catch (err) {
          if (stopWatch.signal.aborted) return;
          throw err;
        }
        if (stopWatch.signal.aborted) return;
        listed = await measured.list();
        for (const p of listed.items) see(p);
      }
    })();
    progress(`${shape.name} (${method}): setup done in ${fmt(setupMs / 1000, 0)} s; starting the scheduler`);

    if (o.profileDir) await mkdir(o.profileDir, { recursive: true });
    const scheduler = startComponent({
      command: 'scheduler',
      args: ['--kubeconfig', server.kubeconfig, '--no-leader-elect', '--kube-api-qps', String(o.qps), '--kube-api-burst', String(o.qps), '--health-port', '0'],
      cpuProfileDir: o.profileDir,
    });
    try {
      const started = await scheduler.logged('scheduler started');
      const createdAt = new Map<string, number>();
      let t0 = started;
      let createdPerSecond = NaN;
      const failed = watching.then(() => Promise.reject(new Error('watch ended early')));
      if (method === 'upstream') {
        // scheduler_perf's measured phase: the scheduler runs and has synced; the pods arrive now
        t0 = performance.now();
        await Promise.race([createMeasured(createdAt), failed]);
        createdPerSecond = (shape.measured * 1000) / (performance.now() - t0);
        progress(`${shape.name}: ${shape.measured} pods created in ${fmt((performance.now() - t0) / 1000, 1)} s, ${bound.size} bound so far`);
      }
      await Promise.race([done, failed]);
      progress(`${shape.name}: all ${shape.measured} pods bound`);
      const perSecond: number[] = [];
      for (const at of bound.values()) {
        const second = Math.floor((at - t0) / 1000);
        perSecond[second] = (perSecond[second] ?? 0) + 1;
      }
      // whole seconds only: the last, partial one would understate the rate
      const wholeSeconds = Array.from({ length: Math.floor((lastBind - t0) / 1000) }, (_, i) => perSecond[i] ?? 0);
      const createdToBound = [...createdAt].map(([name, at]) => bound.get(name)! - at);
      const metrics = await fetchMetrics(await scheduler.healthPort);
      const attempt = parseHistogram(metrics, 'scheduler_scheduling_attempt_duration_seconds', 'result="scheduled"');
      const e2e = parseHistogram(metrics, 'scheduler_pod_scheduling_sli_duration_seconds');
      return {
        shape,
        method,
        podsPerSecond: (shape.measured * 1000) / (lastBind - t0),
        perSecondP50: method === 'upstream' ? percentile(wholeSeconds, 50) : NaN,
        perSecondP99: method === 'upstream' ? percentile(wholeSeconds, 99) : NaN,
        createdToBoundP50: percentile(createdToBound, 50),
        createdToBoundP99: percentile(createdToBound, 99),
        createdPerSecond,
        firstBindMs: firstBind - t0,
        attemptP50: histogramQuantile(attempt, 0.5) * 1000,
        attemptP99: histogramQuantile(attempt, 0.99) * 1000,
        e2eP50: histogramQuantile(e2e, 0.5) * 1000,
        e2eP99: histogramQuantile(e2e, 0.99) * 1000,
        setupMs,
      };
    } finally {
      stopWatch.abort();
      await watching.catch(() => undefined);
      await scheduler.stop();
      client.close();
    }
  } finally {
    await server.stop();
    await removeDir(server.dataDir);
  }
}

const METHOD_LABEL: Record<Method, string> = {
  upstream: "upstream's method: pods created while the scheduler runs, clock from the first create",
  backlog: 'backlog method (not comparable to upstream): pods created before the scheduler starts, clock from its first cycle',
};

function print(r: Result): void {
  const s = r.shape;
  const ratio = Number.isFinite(s.thresholdLow) ? `${fmt(r.podsPerSecond / s.thresholdLow, 2)}×` : 'n/a';
  const lines = [
    `\n${s.name}: ${s.nodes} nodes, ${s.existing} existing pods, ${s.measured} measured pods (setup ${fmt(r.setupMs / 1000, 0)} s)`,
    `  ${METHOD_LABEL[r.method]}`,
    `  pods scheduled/s over the phase      ${fmt(r.podsPerSecond, 0)}   (upstream threshold ${s.threshold}; ratio ${r.method === 'upstream' ? ratio : `${ratio}, not comparable`})`,
  ];
  if (r.method === 'upstream') {
    lines.push(`  pods created/s by the bench          ${fmt(r.createdPerSecond, 0)}   (the bound on the rate above: near it, creation is what limits)`);
    lines.push(`  pods bound per second p50/p99       ${fmt(r.perSecondP50, 0)} / ${fmt(r.perSecondP99, 0)}`);
    lines.push(`  created → bound (client) p50/p99, ms ${fmt(r.createdToBoundP50, 0)} / ${fmt(r.createdToBoundP99, 0)}`);
  }
  lines.push(
    `  first binding after start, ms       ${fmt(r.firstBindMs, 0)}`,
    `  attempt latency p50/p99, ms         ${fmt(r.attemptP50, 1)} / ${fmt(r.attemptP99, 1)}`,
    `  queued → bound (scheduler's SLI histogram) p50/p99, ms  ${fmt(r.e2eP50, 0)} / ${fmt(r.e2eP99, 0)}${r.method === 'backlog' ? `   (backlog of ${s.measured})` : ''}`,
    `  load average                        ${loadavg().map((l) => fmt(l, 1)).join(' ')}`,
    '',
  );
  process.stdout.write(lines.join('\n'));
}

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { profile: { type: 'string' }, qps: { type: 'string', default: '5000' }, list: { type: 'boolean', default: false }, method: { type: 'string', default: 'both' } },
  });
  if (values.list) {
    for (const s of SHAPES) process.stdout.write(`${s.name}\n`);
    return;
  }
  // A shape is picked by any case-insensitive part of its name ("basic/500", "topology", "anti").
  const chosen = positionals.length === 0 ? SHAPES : SHAPES.filter((s) => positionals.some((p) => s.name.toLowerCase().includes(p.toLowerCase())));
  if (chosen.length === 0) throw new RangeError(`no shape matches ${positionals.join(' ')}; shapes: ${SHAPES.map((s) => s.name).join(', ')}`);
  process.stdout.write(`scheduler benchmark: skiff scheduler as its own process, client qps/burst ${values.qps} (as scheduler_perf's client)\n`);
  const methods: Method[] = values.method === 'both' ? ['upstream', 'backlog'] : values.method === 'upstream' || values.method === 'backlog' ? [values.method] : [];
  if (methods.length === 0) throw new RangeError(`--method must be upstream, backlog or both, not ${JSON.stringify(values.method)}`);
  const results: Result[] = [];
  for (const s of chosen) {
    for (const method of methods) {
      const r = await runShape(s, method, { qps: Number(values.qps), profileDir: values.profile });
      print(r);
      results.push(r);
    }
  }
  if (results.length > 1) {
    process.stdout.write('\nsummary\n');
    for (const r of results) {
      const latency = r.method === 'upstream' ? `created → bound p99 ${fmt(r.createdToBoundP99, 0)} ms, ` : '';
      process.stdout.write(`  ${r.shape.name.padEnd(46)} ${r.method.padEnd(8)} ${fmt(r.podsPerSecond, 0).padStart(6)} pods/s   ${latency}queued → bound p50/p99 ${fmt(r.e2eP50, 0)} / ${fmt(r.e2eP99, 0)} ms\n`);
    }
  }
}
