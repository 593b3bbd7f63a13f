import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { Client, loadKubeconfig } from '../src/client/rest/index.js';
import { removeDir, startServer, type ServerProcess } from '../test/e2e/harness.js';
import { fetchMetrics, parseCounter, startComponent, type ComponentProcess } from './component-process.js';
import { fmt, runConcurrent } from './stats.js';

/**
 * `npm run bench -- controllers [--replicas 1000] [--qps 50] [--profile DIR]`:
 * how long a Deployment of N replicas takes from create to N pods created,
 * on simulated nodes (Node objects only; no scheduler or kubelet, so pods
 * stay Pending). The controller manager runs as its own process against a
 * `skiff apiserver`, with the client rate limit given (default 50 qps /
 * burst 100, the component default that `skiff server` uses). Reconciles
 * per second come from its `controller_runtime_reconcile_total` counters.
 * Prints figures; asserts nothing.
 */

const PODS = { group: '', version: 'v1', resource: 'pods' };

function deployment(replicas: number): Deployment {
  const labels = { app: 'bench' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] } },
    },
  };
}

function node(i: number): Node {
  const capacity = { cpu: '64', memory: '256Gi', pods: '250' };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}` } }, status: { capacity, allocatable: capacity } };
}

interface Run {
  createdMs: number;
  /** When the Deployment's status first reported all replicas (the status write-back catching up). */
  statusMs: number;
  firstPodMs: number;
  reconciles: Record<string, number>;
  reconcileSeconds: number;
}

async function measure(server: ServerProcess, cm: ComponentProcess, replicas: number): Promise<Run> {
  const client = new Client({ ...loadKubeconfig(server.kubeconfig), qps: -1 }, { component: 'bench' });
  try {
    await runConcurrent(10, 10, async (i) => void (await client.resource<Node>({ group: '', version: 'v1', resource: 'nodes' }).create(node(i))));
    const pods = client.resource<Pod>(PODS).namespace('default');
    const deployments = client.resource<Deployment>({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace('default');
    await cm.logged('controller manager started');
    const metricsPort = await cm.healthPort;
    const before = await fetchMetrics(metricsPort);

    const seen = new Set<string>();
    const stop = new AbortController();
    let firstPod = 0;
    let lastPod = 0;
    let statusAt = 0;
    const listed = await pods.list();
    const t0 = performance.now();
    const watchPods = (async () => {
      try {
        for await (const ev of pods.watch({ resourceVersion: listed.metadata?.resourceVersion, signal: stop.signal })) {
          if (ev.type !== 'ADDED') continue;
          seen.add(ev.object.metadata?.name ?? '');
          lastPod = performance.now();
          firstPod ||= lastPod;
          if (seen.size >= replicas) return;
        }
      } catch (err) {
        if (!stop.signal.aborted) throw err;
      }
    })();
    await deployments.create(deployment(replicas));
    await watchPods;
    // The Deployment's status catches up through the ReplicaSet's: poll it (cheap, one object).
    for (;;) {
      const d = await deployments.get('bench');
      if ((d.status?.replicas ?? 0) >= replicas) {
        statusAt = performance.now();
        break;
      }
      if (performance.now() - t0 > 300_000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    stop.abort();
    const after = await fetchMetrics(metricsPort);
    const reconciles: Record<string, number> = {};
    for (const c of ['deployment', 'replicaset']) {
      reconciles[c] = parseCounter(after, 'controller_runtime_reconcile_total', `controller="${c}"`) - parseCounter(before, 'controller_runtime_reconcile_total', `controller="${c}"`);
    }
    const all = parseCounter(after, 'controller_runtime_reconcile_total') - parseCounter(before, 'controller_runtime_reconcile_total');
    reconciles.all = all;
    return { createdMs: lastPod - t0, statusMs: statusAt - t0, firstPodMs: firstPod - t0, reconciles, reconcileSeconds: (statusAt - t0) / 1000 };
  } finally {
    client.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { replicas: { type: 'string', default: '1000' }, qps: { type: 'string', default: '50' }, burst: { type: 'string' }, profile: { type: 'string' } },
  });
  const replicas = Number(values.replicas);
  const qps = Number(values.qps);
  const burst = values.burst ? Number(values.burst) : qps * 2;
  if (values.profile) await mkdir(values.profile, { recursive: true });
  const server = await startServer({ command: 'apiserver' });
  const cm = startComponent({
    command: 'controller-manager',
    args: ['--kubeconfig', server.kubeconfig, '--no-leader-elect', '--kube-api-qps', String(qps), '--kube-api-burst', String(burst), '--health-port', '0'],
    cpuProfileDir: values.profile,
  });
  try {
    const r = await measure(server, cm, replicas);
    const perSecond = (n: number) => fmt(n / r.reconcileSeconds, 1);
    process.stdout.write(
      [
        `\ncontrollers: Deployment of ${replicas} replicas, controller manager at ${qps} qps / burst ${burst}, simulated nodes`,
        `  create → first pod, ms                 ${fmt(r.firstPodMs, 0)}`,
        `  create → ${replicas} pods created, s        ${fmt(r.createdMs / 1000, 2)}   (${fmt((replicas * 1000) / r.createdMs, 0)} pods/s; the qps floor alone is ${fmt(replicas / qps, 1)} s)`,
        `  create → status.replicas = ${replicas}, s   ${fmt(r.statusMs / 1000, 2)}`,
        `  reconciles (deployment / replicaset / all)   ${r.reconciles.deployment} / ${r.reconciles.replicaset} / ${r.reconciles.all}`,
        `  reconciles/s (deployment / replicaset / all) ${perSecond(r.reconciles.deployment)} / ${perSecond(r.reconciles.replicaset)} / ${perSecond(r.reconciles.all)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await cm.stop();
    await server.stop();
    await removeDir(server.dataDir);
  }
}
